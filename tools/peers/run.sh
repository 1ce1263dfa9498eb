#!/usr/bin/env bash
# Side by side with kube-score on six public repositories: CPU per run,
# max RSS, findings and exit codes, each tool on the same objects.
#
#   tools/peers/run.sh SRC KUBEGAP KUBE_SCORE [ROUNDS] [RUNS]
#
# SRC holds the six repositories, each extracted at the commit
# docs/PERFORMANCE.md names (microservices-demo, argo-cd, external-dns,
# ingress-nginx, helm (coredns/helm), helm-charts (prometheus-community)).
# Each round runs every tool on every input one after another; within a
# round a tool runs RUNS times in a row and its CPU (user+sys of the loop,
# children included, from bash's `times`) is divided by RUNS, so that runs
# of a few milliseconds are measured to the millisecond rather than in
# /usr/bin/time's 10 ms steps. The figure is the median over ROUNDS.
set -euo pipefail
src=$1 kg=$2 ks=$3 rounds=${4:-5} runs=${5:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name | kubegap's arguments on the repository's own form
inputs=(
  "microservices-demo|-f $src/microservices-demo/release/kubernetes-manifests.yaml"
  "argo-cd HA (kustomize)|-k $src/argo-cd/manifests/ha/cluster-install"
  "external-dns (kustomize)|-k $src/external-dns/kustomize"
  "ingress-nginx (chart)|--chart $src/ingress-nginx/charts/ingress-nginx -n ingress-nginx"
  "coredns (chart)|--chart $src/helm/charts/coredns -n kube-system"
  "prometheus-node-exporter (chart)|--chart $src/helm-charts/charts/prometheus-node-exporter -n monitoring"
)

# The same objects as one file, for kube-score and for kubegap -f.
i=0
for in in "${inputs[@]}"; do
  args=${in#*|}
  case $args in
    -f*) cp "${args#-f }" "$work/$i.yaml" ;;
    *) "$kg" render $args >"$work/$i.yaml" ;;
  esac
  i=$((i + 1))
done

cpu_ms() { # RUNS cmd... -> milliseconds of CPU per run; call as $(cpu_ms …)
  local n=$1; shift
  ( for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 || true; done )
  # bash's times: the second line is the user and system time of this
  # shell's waited-for children, the loop above and all it ran.
  times >"$work/times" # a builtin, so in this shell: not in a pipeline's subshell
  tail -1 "$work/times" | awk -v n="$n" '{
    split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%d", ((u[1] * 60 + u[2]) + (s[1] * 60 + s[2])) * 1000 / n }'
}
rss_mb() { { /usr/bin/time -f %M "$@" 2>&1 >/dev/null || true; } | tail -1 | awk '{printf "%d", $1/1024}'; }
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

declare -A res
for r in $(seq "$rounds"); do
  i=0
  for in in "${inputs[@]}"; do
    args=${in#*|}
    n=$runs
    case $args in -k*argo-cd*) n=3 ;; esac
    res[$i,kgform]+="$(cpu_ms "$n" "$kg" scan $args --fail-on none -o json) "
    res[$i,kgfile]+="$(cpu_ms "$runs" "$kg" scan -f "$work/$i.yaml" --fail-on none -o json) "
    res[$i,ks]+="$(cpu_ms "$runs" "$ks" score --output-format ci "$work/$i.yaml") "
    res[$i,rkgform]+="$(rss_mb "$kg" scan $args --fail-on none -o json) "
    res[$i,rkgfile]+="$(rss_mb "$kg" scan -f "$work/$i.yaml" --fail-on none -o json) "
    res[$i,rks]+="$(rss_mb "$ks" score --output-format ci "$work/$i.yaml") "
    i=$((i + 1))
  done
done

echo "| input | objects | kubegap, repository's form | kubegap, rendered file | kube-score, rendered file | kubegap ÷ kube-score (same file) | kubegap findings | kube-score | exit codes |"
echo "|---|---:|---|---|---|---:|---:|---|---|"
i=0
for in in "${inputs[@]}"; do
  name=${in%%|*} args=${in#*|}
  m() { tr ' ' '\n' <<<"${res[$i,$1]}" | grep . | median; }
  objs=$("$kg" scan -f "$work/$i.yaml" --fail-on none -o json | jq '.input.objects')
  findings=$("$kg" scan $args --fail-on none -o json | jq '.findings | length')
  set +e
  "$kg" scan $args >/dev/null 2>&1; e1=$?
  "$kg" scan -f "$work/$i.yaml" >/dev/null 2>&1; e2=$?
  ksout=$("$ks" score --output-format ci "$work/$i.yaml" 2>/dev/null); e3=$?
  set -e
  crit=$(grep -c '^\[CRITICAL\]' <<<"$ksout" || true)
  warn=$(grep -c '^\[WARNING\]' <<<"$ksout" || true)
  ratio=$(awk -v a="$(m kgfile)" -v b="$(m ks)" 'BEGIN{printf "%.1f×", a/b}')
  echo "| $name | $objs | $(m kgform) ms, $(m rkgform) MB | $(m kgfile) ms, $(m rkgfile) MB | $(m ks) ms, $(m rks) MB | $ratio | $findings | $crit critical, $warn warning | $e1 / $e2 / $e3 |"
  i=$((i + 1))
done
