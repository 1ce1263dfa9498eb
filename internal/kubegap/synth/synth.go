// Package synth writes a synthetic dump of a large cluster, shaped like
// `kubectl get nodes,pods,deploy,ds,sts,svc,... -A -o json|yaml` output, for
// kubegap's performance measurements.
package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Size says how big the cluster is.
type Size struct {
	Nodes       int
	Pods        int // spread over Deployments (50 each) and 5 DaemonSets
	Namespaces  int
	ImagesNode  int // images reported per node
	DaemonSets  int
	Services    int // one per Deployment
	PDBsPercent int
}

// Large is the 5,000-node, 150,000-pod cluster of the performance target.
var Large = Size{Nodes: 5000, Pods: 150000, Namespaces: 200, ImagesNode: 30, DaemonSets: 5, PDBsPercent: 40}

type obj = map[string]any

func meta(name, ns string, labels map[string]string) obj {
	m := obj{"name": name, "uid": fmt.Sprintf("uid-%s-%s", ns, name), "resourceVersion": "12345", "creationTimestamp": "2026-01-01T00:00:00Z"}
	if ns != "" {
		m["namespace"] = ns
	}
	if labels != nil {
		m["labels"] = labels
	}
	return m
}

func container(name, image string) obj {
	return obj{
		"name": name, "image": image,
		"ports":          []obj{{"containerPort": 8080, "protocol": "TCP"}},
		"resources":      obj{"requests": obj{"cpu": "100m", "memory": "128Mi"}, "limits": obj{"memory": "512Mi"}},
		"env":            []obj{{"name": "LOG_LEVEL", "value": "info"}, {"name": "POD_IP", "valueFrom": obj{"fieldRef": obj{"fieldPath": "status.podIP"}}}},
		"readinessProbe": obj{"httpGet": obj{"path": "/ready", "port": 8080}, "periodSeconds": 10},
		"volumeMounts":   []obj{{"name": "config", "mountPath": "/etc/app"}},
	}
}

// Objects calls emit for every object of the cluster, nodes first.
func Objects(s Size, emit func(obj) error) error {
	for i := 0; i < s.Nodes; i++ {
		if err := emit(node(i, s.ImagesNode)); err != nil {
			return err
		}
	}
	dsPods := s.DaemonSets * s.Nodes
	deployments := (s.Pods - dsPods) / 50
	if deployments < 1 {
		deployments = 1
	}
	for d := 0; d < s.DaemonSets; d++ {
		if err := emit(daemonSet(d, s.Nodes)); err != nil {
			return err
		}
	}
	for d := 0; d < deployments; d++ {
		if err := emitDeployment(s, d, emit); err != nil {
			return err
		}
	}
	return emitPods(s, deployments, emit)
}

// namespace is the namespace of the i-th Deployment.
func (s Size) namespace(i int) string { return fmt.Sprintf("team-%03d", i%s.Namespaces) }

// node is the i-th Node, reporting images images.
func node(i, nImages int) obj {
	images := make([]obj, nImages)
	for j := range images {
		images[j] = obj{"names": []string{fmt.Sprintf("registry.example.com/team%d/app%d@sha256:%064d", j%17, j, j), fmt.Sprintf("registry.example.com/team%d/app%d:v%d", j%17, j, j)}, "sizeBytes": 150000000 + j*1000000}
	}
	disk := "104845292Ki"
	if i%50 == 0 {
		disk = "20959212Ki" // a few small disks, so that findings exist
	}
	return obj{"apiVersion": "v1", "kind": "Node",
		"metadata": meta(fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", i/65536, (i/256)%256, i%256), "", map[string]string{
			"kubernetes.io/hostname": fmt.Sprintf("node-%d", i), "node.kubernetes.io/instance-type": "m6i.4xlarge",
			"topology.kubernetes.io/zone": fmt.Sprintf("eu-west-1%c", 'a'+i%3), "kubernetes.io/os": "linux"}),
		"spec": obj{"providerID": fmt.Sprintf("aws:///eu-west-1a/i-%017d", i), "podCIDR": fmt.Sprintf("10.%d.%d.0/24", 100+i/256, i%256)},
		"status": obj{
			"capacity":    obj{"cpu": "16", "memory": "65020832Ki", "ephemeral-storage": disk, "pods": "110"},
			"allocatable": obj{"cpu": "15890m", "memory": "63880096Ki", "ephemeral-storage": "96626094087", "pods": "110"},
			"conditions":  []obj{{"type": "Ready", "status": "True", "reason": "KubeletReady"}, {"type": "DiskPressure", "status": "False"}},
			"nodeInfo":    obj{"kernelVersion": "6.1.112-124.190.amzn2023.x86_64", "kubeletVersion": "v1.31.2", "containerRuntimeVersion": "containerd://1.7.22", "osImage": "Amazon Linux 2023"},
			"images":      images,
			"addresses":   []obj{{"type": "InternalIP", "address": fmt.Sprintf("10.0.%d.%d", i/256, i%256)}},
		}}
}

// daemonSet is the d-th DaemonSet, on every one of nodes nodes.
func daemonSet(d, nodes int) obj {
	name := fmt.Sprintf("agent-%d", d)
	return obj{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta(name, "kube-system", map[string]string{"app": name}),
		"spec": obj{"selector": obj{"matchLabels": obj{"app": name}}, "template": obj{"metadata": obj{"labels": obj{"app": name}},
			"spec": obj{"serviceAccountName": name, "containers": []obj{container(name, "registry.example.com/agents/"+name+":1.0")},
				"volumes": []obj{{"name": "config", "configMap": obj{"name": name}}}}}},
		"status": obj{"desiredNumberScheduled": nodes, "numberReady": nodes}}
}

// emitDeployment emits the d-th Deployment, its Service and, for
// s.PDBsPercent of them, a PodDisruptionBudget.
func emitDeployment(s Size, d int, emit func(obj) error) error {
	ns, name := s.namespace(d), fmt.Sprintf("svc-%05d", d)
	labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": ns}
	dep := obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(name, ns, labels),
		"spec": obj{"replicas": 50, "selector": obj{"matchLabels": labels},
			"template": obj{"metadata": obj{"labels": labels}, "spec": obj{"terminationGracePeriodSeconds": 30, "containers": []obj{container("app", "registry.example.com/"+ns+"/"+name+":v1")},
				"volumes": []obj{{"name": "config", "configMap": obj{"name": name}}}}}},
		"status": obj{"replicas": 50, "readyReplicas": 50}}
	svc := obj{"apiVersion": "v1", "kind": "Service", "metadata": meta(name, ns, labels),
		"spec": obj{"selector": labels, "ports": []obj{{"port": 80, "targetPort": 8080}}, "clusterIP": fmt.Sprintf("172.20.%d.%d", d/256, d%256)}}
	for _, o := range []obj{dep, svc} {
		if err := emit(o); err != nil {
			return err
		}
	}
	if d%100 < s.PDBsPercent {
		pdb := obj{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta(name, ns, nil),
			"spec": obj{"maxUnavailable": 1, "selector": obj{"matchLabels": labels}}}
		if err := emit(pdb); err != nil {
			return err
		}
	}
	return nil
}

// emitPods emits the pods, the Deployments' first and the DaemonSets'
// after, s.Pods in all. Pods come last, as kubectl sorts kinds: the bulk of
// the dump.
func emitPods(s Size, deployments int, emit func(obj) error) error {
	p := 0
	for d := 0; d < deployments && p < s.Pods; d++ {
		ns, name := s.namespace(d), fmt.Sprintf("svc-%05d", d)
		labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": ns, "pod-template-hash": "7d9f8b6c5"}
		for r := 0; r < 50 && p < s.Pods; r++ {
			if err := emit(pod(fmt.Sprintf("%s-7d9f8b6c5-%05d", name, r), ns, labels, p%s.Nodes, "registry.example.com/"+ns+"/"+name+":v1")); err != nil {
				return err
			}
			p++
		}
	}
	for d := 0; d < s.DaemonSets && p < s.Pods; d++ {
		name := fmt.Sprintf("agent-%d", d)
		for n := 0; n < s.Nodes && p < s.Pods; n++ {
			if err := emit(pod(fmt.Sprintf("%s-%05d", name, n), "kube-system", map[string]string{"app": name}, n, "registry.example.com/agents/"+name+":1.0")); err != nil {
				return err
			}
			p++
		}
	}
	return nil
}

func pod(name, ns string, labels map[string]string, node int, image string) obj {
	m := meta(name, ns, labels)
	m["ownerReferences"] = []obj{{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name[:len(name)-6], "uid": "x", "controller": true}}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": m,
		"spec": obj{"nodeName": fmt.Sprintf("node-%d", node), "containers": []obj{container("app", image)}, "restartPolicy": "Always", "schedulerName": "default-scheduler",
			"volumes": []obj{{"name": "config", "configMap": obj{"name": "app-config"}}}},
		"status": obj{"phase": "Running", "podIP": fmt.Sprintf("10.%d.%d.%d", 100+node/256, node%256, 7), "hostIP": fmt.Sprintf("10.0.%d.%d", node/256, node%256),
			"conditions":        []obj{{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}},
			"containerStatuses": []obj{{"name": "app", "ready": true, "restartCount": 0, "image": image, "imageID": image + "@sha256:abc", "containerID": "containerd://abc"}}}}
}

// Format is how a dump is laid out.
type Format string

// The layouts kubegap reads: one `kind: List` (`kubectl get -o json|yaml`),
// or one object after another (`helm template`, `kubectl get` of single
// objects, files concatenated).
const (
	ListJSON Format = "json"
	ListYAML Format = "yaml"
	DocsJSON Format = "json-docs"
	DocsYAML Format = "yaml-docs"
)

// Formats lists every layout.
var Formats = []Format{ListJSON, ListYAML, DocsJSON, DocsYAML}

// Generator calls emit for every object of a dump.
type Generator func(emit func(map[string]any) error) error

// Cluster is the generator of a cluster of size s.
func Cluster(s Size) Generator {
	return func(emit func(map[string]any) error) error { return Objects(s, emit) }
}

// Write writes the objects of gen to w in layout f.
func Write(w io.Writer, gen Generator, f Format) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var err error
	switch f {
	case ListJSON:
		err = writeListJSON(bw, gen)
	case ListYAML:
		err = writeListYAML(bw, gen)
	case DocsJSON:
		err = gen(func(o obj) error {
			b, err := json.MarshalIndent(o, "", "    ")
			if err != nil {
				return err
			}
			bw.Write(b)
			return bw.WriteByte('\n')
		})
	case DocsYAML:
		err = gen(func(o obj) error {
			b, err := yaml.Marshal(o)
			if err != nil {
				return err
			}
			bw.WriteString("---\n")
			_, err = bw.Write(b)
			return err
		})
	default:
		err = fmt.Errorf("unknown format %q (json, yaml, json-docs or yaml-docs)", f)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// WriteJSON writes the dump as one `kind: List`, as `kubectl get -o json`
// does.
func WriteJSON(w io.Writer, s Size) error { return Write(w, Cluster(s), ListJSON) }

// WriteYAML writes the dump as one `kind: List`, as `kubectl get -o yaml`
// does.
func WriteYAML(w io.Writer, s Size) error { return Write(w, Cluster(s), ListYAML) }

func writeListJSON(bw *bufio.Writer, gen Generator) error {
	bw.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n")
	first := true
	err := gen(func(o obj) error {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		b, err := json.MarshalIndent(o, "        ", "    ")
		if err != nil {
			return err
		}
		bw.WriteString("        ")
		_, err = bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	bw.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	return nil
}

func writeListYAML(bw *bufio.Writer, gen Generator) error {
	bw.WriteString("apiVersion: v1\nitems:\n")
	err := gen(func(o obj) error {
		b, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		for i, l := range splitLines(b) {
			if i == 0 {
				bw.WriteString("- ")
			} else if len(l) > 0 {
				bw.WriteString("  ")
			}
			bw.Write(l)
			bw.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return err
	}
	bw.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	start := 0
	for i, c := range b {
		if c == '\n' {
			out = append(out, b[start:i])
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, b[start:])
	}
	return out
}
