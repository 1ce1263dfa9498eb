package synth

import "fmt"

// Workloads is the generator of what an application repository holds for
// namespaces namespaces of perNamespace workloads each, as manifests (no
// status, no Nodes, no Pods): the input every linter reads. Of every ten
// workloads six are Deployments (each with a Service, every second one with
// a PodDisruptionBudget, every third one with a HorizontalPodAutoscaler),
// two StatefulSets (each with a headless Service), one a DaemonSet and one a
// CronJob. Each namespace also has its Namespace, a ServiceAccount and a
// ConfigMap.
func Workloads(namespaces, perNamespace int) Generator {
	return func(emit func(map[string]any) error) error {
		for n := 0; n < namespaces; n++ {
			if err := Namespace(n, perNamespace)(emit); err != nil {
				return err
			}
		}
		return nil
	}
}

// Namespace is the generator of the n-th namespace of Workloads.
func Namespace(n, perNamespace int) Generator {
	return func(emit func(map[string]any) error) error {
		{
			ns := fmt.Sprintf("team-%03d", n)
			for _, o := range []obj{
				{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": ns, "labels": obj{"team": ns}}},
				{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": obj{"name": "app", "namespace": ns}},
				{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": "app-config", "namespace": ns}, "data": obj{"LOG_LEVEL": "info", "FEATURES": "a,b,c"}},
			} {
				if err := emit(o); err != nil {
					return err
				}
			}
			for w := 0; w < perNamespace; w++ {
				for _, o := range workload(ns, w) {
					if err := emit(o); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
}

func workload(ns string, w int) []obj {
	name := fmt.Sprintf("app-%03d", w)
	labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": ns}
	c := container("app", fmt.Sprintf("registry.example.com/%s/%s:1.%d.0", ns, name, w))
	if w%4 == 0 {
		c["livenessProbe"] = obj{"httpGet": obj{"path": "/healthz", "port": 8080}, "periodSeconds": 10, "failureThreshold": 3}
	}
	if w%5 == 0 {
		c["securityContext"] = obj{"runAsNonRoot": true, "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false}
	}
	podSpec := obj{"serviceAccountName": "app", "containers": []obj{c},
		"volumes": []obj{{"name": "config", "configMap": obj{"name": "app-config"}}}}
	template := obj{"metadata": obj{"labels": labels}, "spec": podSpec}
	meta := obj{"name": name, "namespace": ns, "labels": labels}
	service := func(headless bool) obj {
		spec := obj{"selector": labels, "ports": []obj{{"name": "http", "port": 80, "targetPort": 8080}}}
		if headless {
			spec["clusterIP"] = "None"
		}
		return obj{"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec}
	}
	switch w % 10 {
	case 6, 7:
		return []obj{
			{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta, "spec": obj{"replicas": 3, "serviceName": name,
				"selector": obj{"matchLabels": labels}, "template": template,
				"volumeClaimTemplates": []obj{{"metadata": obj{"name": "data"}, "spec": obj{"accessModes": []string{"ReadWriteOnce"},
					"resources": obj{"requests": obj{"storage": "10Gi"}}}}}}},
			service(true),
		}
	case 8:
		return []obj{{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta, "spec": obj{"selector": obj{"matchLabels": labels},
			"updateStrategy": obj{"type": "RollingUpdate", "rollingUpdate": obj{"maxUnavailable": 1}}, "template": template}}}
	case 9:
		podSpec["restartPolicy"] = "OnFailure"
		return []obj{{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta, "spec": obj{"schedule": fmt.Sprintf("%d * * * *", w%60),
			"concurrencyPolicy": "Forbid", "jobTemplate": obj{"spec": obj{"backoffLimit": 2, "template": template}}}}}
	}
	out := []obj{
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": obj{"replicas": 1 + w%3,
			"selector": obj{"matchLabels": labels}, "template": template}},
		service(false),
	}
	if w%2 == 0 {
		out = append(out, obj{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta,
			"spec": obj{"maxUnavailable": 1, "selector": obj{"matchLabels": labels}}})
	}
	if w%3 == 0 {
		out = append(out, obj{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta,
			"spec": obj{"scaleTargetRef": obj{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}, "minReplicas": 2, "maxReplicas": 10,
				"metrics": []obj{{"type": "Resource", "resource": obj{"name": "cpu", "target": obj{"type": "Utilization", "averageUtilization": 70}}}}}})
	}
	return out
}
