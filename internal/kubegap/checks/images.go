package checks

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/incidentlib/incidentlib"
	"github.com/incidentlib/incidentlib/internal/kubegap/inventory"
)

// imageChecks are the checks of images: a check of this file is listed here, and
// registry.go lists the files.
func imageChecks() []*Check {
	return []*Check{
		imagePullAlwaysPublic(),
		imageMutableTag(),
		etcdV35DataInconsistency(),
	}
}

// imageRef splits an image reference into registry host, tag and whether it
// is pinned by digest. Docker Hub is the registry of names without a host.
func imageRef(img string) (registry, tag string, digest bool) {
	if i := strings.Index(img, "@"); i >= 0 {
		img, digest = img[:i], true
	}
	registry = "docker.io"
	if i := strings.Index(img, "/"); i >= 0 {
		if first := img[:i]; strings.ContainsAny(first, ".:") || first == "localhost" {
			registry = first
		}
	}
	if i := strings.LastIndex(img, ":"); i > strings.LastIndex(img, "/") {
		tag = img[i+1:]
	}
	switch registry {
	case "index.docker.io", "registry-1.docker.io", "registry.hub.docker.com":
		registry = "docker.io"
	}
	return registry, tag, digest
}

// pullPolicy is the policy the API server gives a container: its own, or
// Always for :latest and untagged images, else IfNotPresent.
func pullPolicy(c *corev1.Container) corev1.PullPolicy {
	if c.ImagePullPolicy != "" {
		return c.ImagePullPolicy
	}
	_, tag, digest := imageRef(c.Image)
	if !digest && (tag == "" || tag == "latest") {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// publicRegistries are the shared public registries the cited cases saw
// rate-limit or fail.
var publicRegistries = map[string]bool{"docker.io": true, "quay.io": true}

func allContainers(t *corev1.PodTemplateSpec) []*corev1.Container {
	var out []*corev1.Container
	for i := range t.Spec.InitContainers {
		out = append(out, &t.Spec.InitContainers[i])
	}
	for i := range t.Spec.Containers {
		out = append(out, &t.Spec.Containers[i])
	}
	return out
}

var allWorkloads = []inventory.Kind{inventory.Deployment, inventory.StatefulSet, inventory.DaemonSet, inventory.Job, inventory.CronJob}

func imagePullAlwaysPublic() *Check {
	c := &Check{
		ID:       "image-pull-always-public-registry",
		Severity: Medium,
		Title: incidentlib.Text{
			EN: "Every start pulls the image again from a public registry (imagePullPolicy Always)",
			KO: "시작할 때마다 공개 레지스트리에서 이미지를 다시 받음(imagePullPolicy Always)",
		},
		Remediation: incidentlib.Text{
			EN: "Pin images by version tag or digest and let the pull policy default to IfNotPresent; serve them from a registry you run or a pull-through cache (a mirror of Docker Hub and quay.io) with enough rate-limit headroom for a mass restart; and watch failed pulls and the registry's rate-limit warnings.",
			KO: "이미지를 버전 태그나 다이제스트로 고정하고 pull policy가 기본값 IfNotPresent가 되게 하세요. 직접 운영하는 레지스트리나 풀스루 캐시(Docker Hub와 quay.io 미러)에서 받게 하되, 한꺼번에 재시작해도 속도 제한에 걸리지 않을 여유를 두세요. 이미지 받기 실패와 레지스트리의 속도 제한 경고를 감시하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The containers (init containers included) of every workload: images from Docker Hub (names without a registry host included) or quay.io whose pull policy is Always, set explicitly or implied by a :latest or missing tag. Each such container pulls from the public registry every time it starts, so restarts under load run into the registry's rate limits, and a registry outage keeps crashed pods and pods on new nodes from starting at all.",
			KO: "모든 워크로드의 컨테이너(init 컨테이너 포함)를 봅니다. Docker Hub(레지스트리 호스트가 없는 이름 포함)나 quay.io의 이미지 가운데 pull policy가 Always인 것(명시했거나 :latest 또는 태그 없음으로 암묵적으로 정해진 것)을 보고합니다. 이런 컨테이너는 시작할 때마다 공개 레지스트리에서 이미지를 받으므로, 부하 중 재시작은 레지스트리 속도 제한에 걸리고, 레지스트리가 멈추면 죽은 파드와 새 노드의 파드가 아예 뜨지 못합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Registry mirrors configured in the container runtime of the nodes (containerd's registry hosts), images already cached on nodes, image pull secrets that raise the rate limit, and other public registries.",
			KO: "노드의 컨테이너 런타임에 설정된 레지스트리 미러(containerd 레지스트리 호스트 설정), 노드에 이미 캐시된 이미지, 속도 제한을 높여 주는 이미지 풀 시크릿, 그 밖의 공개 레지스트리는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{allWorkloads},
		Citations: []Citation{
			{Case: "IL-0744",
				Quote:   "Each restart needed the service's server image to be pulled again, but the primary image registry enforced restrictive rate limits and refused the pulls, so the services could not come back.",
				QuoteKO: "재시작할 때마다 서비스의 서버 이미지를 다시 받아야 했는데, 주 이미지 레지스트리가 엄격한 속도 제한을 걸어 풀을 거부했고 서비스는 다시 올라오지 못했다."},
			{Case: "IL-0562",
				Quote:   "new nodes are added during autoscaling and pull container images from public registries such as quay.io and docker.io before they become ready.",
				QuoteKO: "오토스케일 때 추가된 새 노드는 quay.io, docker.io 같은 공개 레지스트리에서 컨테이너 이미지를 받은 뒤에야 준비 상태가 된다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			var hits []string
			first := ""
			for _, ctr := range allContainers(w.Template) {
				reg, _, _ := imageRef(ctr.Image)
				if publicRegistries[reg] && pullPolicy(ctr) == corev1.PullAlways {
					if len(hits) == 0 {
						first = ctr.Name
					}
					hits = append(hits, fmt.Sprintf("%s (%s)", ctr.Name, ctr.Image))
				}
			}
			if len(hits) == 0 {
				continue
			}
			l := strings.Join(hits, ", ")
			out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, first)+".imagePullPolicy",
				fmt.Sprintf("container %s pulls from a public registry at every start (pull policy Always): restarts under load hit its rate limits, and its outages stop pods from starting", l),
				fmt.Sprintf("컨테이너 %s는 시작할 때마다 공개 레지스트리에서 이미지를 받습니다(pull policy Always). 부하 중 재시작은 속도 제한에 걸리고, 레지스트리가 멈추면 파드가 뜨지 못합니다", l)))
		}
		return out
	}
	return c
}

func imageMutableTag() *Check {
	c := &Check{
		ID:       "image-mutable-tag",
		Severity: Low,
		Title: incidentlib.Text{
			EN: "Image named by :latest or no tag at all",
			KO: "이미지를 :latest 태그로 지정하거나 태그 없이 지정함",
		},
		Remediation: incidentlib.Text{
			EN: "Name every image by a version tag, better by its digest (image@sha256:…), and move to a new image by changing the manifest, so that every pod runs the image you reviewed and a rollback brings the old one back.",
			KO: "모든 이미지를 버전 태그로, 가능하면 다이제스트(image@sha256:…)로 지정하고, 새 이미지로 옮길 때는 매니페스트를 바꾸세요. 그래야 모든 파드가 검토한 이미지를 돌리고, 롤백하면 예전 이미지가 돌아옵니다.",
		},
		LooksAt: incidentlib.Text{
			EN: "The images of every workload's containers (init containers included). An image with the tag latest, or without a tag (which means latest), and no digest is reported: the name points at whatever was pushed last, so a pull on one node, or a restart, silently replaces what every new container starts from, and pods of the same workload can run different code.",
			KO: "모든 워크로드 컨테이너(init 컨테이너 포함)의 이미지를 봅니다. 다이제스트 없이 latest 태그이거나 태그가 없는(곧 latest인) 이미지를 보고합니다. 그 이름은 마지막으로 올린 이미지를 가리키므로, 한 노드에서의 pull이나 재시작이 새로 뜨는 모든 컨테이너의 바탕을 말없이 바꾸고, 같은 워크로드의 파드들이 서로 다른 코드를 돌릴 수 있습니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "Other tags that are moved on purpose (stable, a major version), and admission policies or controllers that resolve tags to digests at creation.",
			KO: "일부러 옮겨 다는 다른 태그(stable, 메이저 버전), 생성할 때 태그를 다이제스트로 바꿔 주는 어드미션 정책이나 컨트롤러는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{allWorkloads},
		Citations: []Citation{
			{Case: "IL-1183",
				Quote:   "Because the user image was named by the moving `latest` tag, the broken image was pulled onto the hub without review.",
				QuoteKO: "사용자 이미지를 움직이는 `latest` 태그로 가리켰기 때문에 깨진 이미지가 검토 없이 허브로 당겨졌다."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			var hits []string
			first := ""
			for _, ctr := range allContainers(w.Template) {
				if _, tag, digest := imageRef(ctr.Image); !digest && (tag == "" || tag == "latest") {
					if len(hits) == 0 {
						first = ctr.Name
					}
					hits = append(hits, fmt.Sprintf("%s (%s)", ctr.Name, ctr.Image))
				}
			}
			if len(hits) == 0 {
				continue
			}
			l := strings.Join(hits, ", ")
			out = append(out, c.findingAt(0, w.Ref, containerPath(w.Ref.Kind, w.Template, first)+".image",
				fmt.Sprintf("container %s names its image by a moving tag: the next pull can change what every new pod runs", l),
				fmt.Sprintf("컨테이너 %s가 이미지를 움직이는 태그로 지정합니다. 다음 pull이 새로 뜨는 모든 파드가 돌릴 것을 바꿀 수 있습니다", l)))
		}
		return out
	}
	return c
}

// etcdBuggyTag matches the etcd releases whose consistent index could be
// saved ahead of the data it points to (v3.5.0 to v3.5.2, fixed in v3.5.3),
// in the tag forms images use: v3.5.1, 3.5.1-0 (kubeadm), 3.5.2-debian-10-r1.
var etcdBuggyTag = regexp.MustCompile(`^v?3\.5\.[0-2]([-_+.].*)?$`)

// initialCorruptCheck reports whether an etcd container turns on the
// corruption check at start, by flag or by its ETCD_ variable.
func initialCorruptCheck(c *corev1.Container) bool {
	const flag = "experimental-initial-corrupt-check"
	for _, a := range append(append([]string(nil), c.Command...), c.Args...) {
		for _, w := range strings.Fields(a) {
			w = strings.TrimLeft(w, "-")
			if w == flag || strings.EqualFold(w, flag+"=true") {
				return true
			}
		}
	}
	for _, e := range c.Env {
		if e.Name == "ETCD_EXPERIMENTAL_INITIAL_CORRUPT_CHECK" && strings.EqualFold(e.Value, "true") {
			return true
		}
	}
	return false
}

// runsEtcdctl reports whether a container's command and arguments run the
// client, etcdctl or etcdutl (a backup, a health check, a defragmentation),
// and not the etcd server: no word of them is the etcd program itself (etcd,
// /usr/local/bin/etcd; an endpoint such as http://etcd is not).
func runsEtcdctl(c *corev1.Container) bool {
	client, server := false, false
	for _, a := range append(append([]string(nil), c.Command...), c.Args...) {
		for _, w := range strings.FieldsFunc(a, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()'\"`", r) }) {
			switch w[strings.LastIndex(w, "/")+1:] {
			case "etcdctl", "etcdutl":
				client = true
			case "etcd":
				server = server || !strings.Contains(w, "://")
			}
		}
	}
	return client && !server
}

func etcdV35DataInconsistency() *Check {
	c := &Check{
		ID:       "etcd-v35-data-inconsistency",
		Severity: High,
		Title: incidentlib.Text{
			EN: "etcd 3.5.0 to 3.5.2, whose members can silently lose committed writes after a crash",
			KO: "크래시 뒤 멤버가 커밋된 쓰기를 말없이 잃을 수 있는 etcd 3.5.0~3.5.2",
		},
		Remediation: incidentlib.Text{
			EN: "Move every member to etcd 3.5.3 or later (or stay on 3.4) before anything else, and until then start members with --experimental-initial-corrupt-check=true, which finds a diverged member at start. Give etcd memory and request headroom so that it is not OOM-killed, and compare the members' HashKV after any crash.",
			KO: "무엇보다 먼저 모든 멤버를 etcd 3.5.3 이상으로(또는 3.4에 머물도록) 옮기고, 그때까지는 멤버를 --experimental-initial-corrupt-check=true로 띄워 시작할 때 어긋난 멤버를 찾게 하세요. etcd가 OOM으로 죽지 않도록 메모리와 요청에 여유를 주고, 크래시가 있은 뒤에는 멤버들의 HashKV를 비교하세요.",
		},
		LooksAt: incidentlib.Text{
			EN: "The long-running etcd members: containers of Deployments, StatefulSets and DaemonSets whose image is etcd (registry.k8s.io/etcd, quay.io/coreos/etcd, bitnami/etcd, …) with a tag of 3.5.0, 3.5.1 or 3.5.2. Jobs and CronJobs (Helm hooks, backups), init containers (waiting for etcd) and containers whose command runs etcdctl or etcdutl rather than the etcd server are not members and are left out. In those releases a member that crashes or is killed in a short window of an apply (under heavy load or out of memory, as the reports were) saves its consistent index ahead of its data and, on restart, skips the committed writes of the interrupted apply: it diverges from the other members without any error. Members started with the initial corruption check are reported as medium, since a diverged member is then caught when it starts.",
			KO: "오래 도는 etcd 멤버, 곧 이미지가 etcd(registry.k8s.io/etcd, quay.io/coreos/etcd, bitnami/etcd 등)이고 태그가 3.5.0, 3.5.1, 3.5.2인 Deployment, StatefulSet, DaemonSet의 컨테이너를 봅니다. Job과 CronJob(Helm 훅, 백업), init 컨테이너(etcd를 기다리는 것), etcd 서버가 아니라 etcdctl이나 etcdutl을 돌리는 컨테이너는 멤버가 아니므로 보지 않습니다. 이 릴리스에서는 적용 도중의 짧은 틈에 죽거나 강제 종료된 멤버(제보된 사례는 부하 폭주나 메모리 부족)가 consistent index를 데이터보다 앞서 저장하고, 다시 뜰 때 중단된 적용의 커밋된 쓰기를 건너뜁니다. 그 멤버는 아무 오류 없이 다른 멤버와 어긋납니다. 시작 시 손상 검사를 켠 멤버는, 어긋난 멤버가 시작할 때 잡히므로 중간으로 보고합니다.",
		},
		CannotSee: incidentlib.Text{
			EN: "etcd run as static pods on control-plane nodes (kubeadm's; kubegap counts pods, it does not read them) or outside the cluster, including a managed control plane's; images whose tag does not carry the version; a server started by a script whose command line does not name etcd while it calls etcdctl; and whether a member has already diverged.",
			KO: "컨트롤 플레인 노드의 스태틱 파드로 도는 etcd(kubeadm의 것. kubegap은 파드를 세기만 하고 읽지 않습니다)나 클러스터 밖의 etcd(관리형 컨트롤 플레인의 것 포함), 태그에 버전이 없는 이미지, etcdctl을 부르면서 명령줄에 etcd를 적지 않은 스크립트로 띄운 서버, 멤버가 이미 어긋났는지는 보지 못합니다.",
		},
		AnyOf: [][]inventory.Kind{{inventory.Deployment, inventory.StatefulSet, inventory.DaemonSet}},
		Citations: []Citation{
			{Case: "IL-0853",
				Quote:   "A member running etcd v3.5 from v3.5.0 until the v3.5.3 fix crashing (reports involved heavy request load or out-of-memory kills) in the small window after the backend hook had saved a new consistent index but before the apply workflow had written its changes.",
				QuoteKO: "v3.5.0 부터 수정판 v3.5.3 이전까지의 etcd v3.5 멤버가, 백엔드 훅이 새 consistent index 를 저장한 뒤이면서 적용 작업이 변경을 기록하기 전인 짧은 틈에 죽은 것(제보된 사례는 요청 폭주나 OOM 종료였다)."},
		},
	}
	c.Run = func(inv *inventory.Inventory) []Finding {
		var out []Finding
		for _, w := range workloads(inv) {
			if w.Ref.Kind == "Job" || w.Ref.Kind == "CronJob" {
				continue // one-shot runs (a hook, a backup), not members
			}
			for i := range w.Template.Spec.Containers {
				ctr := &w.Template.Spec.Containers[i]
				if !imageIs(ctr.Image, "etcd") || runsEtcdctl(ctr) {
					continue
				}
				_, tag, _ := imageRef(ctr.Image)
				if !etcdBuggyTag.MatchString(tag) {
					continue
				}
				path := containerPath(w.Ref.Kind, w.Template, ctr.Name) + ".image"
				if initialCorruptCheck(ctr) {
					out = append(out, c.findingAt(Medium, w.Ref, path,
						fmt.Sprintf("container %s runs etcd %s, whose members can skip committed writes after a crash; its start-up corruption check will catch a diverged member, but only when it restarts", ctr.Name, tag),
						fmt.Sprintf("컨테이너 %s가 etcd %s를 돌립니다. 이 버전의 멤버는 크래시 뒤 커밋된 쓰기를 건너뛸 수 있습니다. 시작 시 손상 검사가 어긋난 멤버를 잡지만, 다시 시작할 때뿐입니다", ctr.Name, tag)))
					continue
				}
				out = append(out, c.findingAt(0, w.Ref, path,
					fmt.Sprintf("container %s runs etcd %s: a member that crashes mid-apply can silently lose committed writes and diverge from the others; upgrade to 3.5.3 or later", ctr.Name, tag),
					fmt.Sprintf("컨테이너 %s가 etcd %s를 돌립니다. 적용 도중 죽은 멤버는 커밋된 쓰기를 말없이 잃고 다른 멤버와 어긋날 수 있습니다. 3.5.3 이상으로 올리세요", ctr.Name, tag)))
			}
		}
		return out
	}
	return c
}
