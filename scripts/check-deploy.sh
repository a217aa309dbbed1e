#!/usr/bin/env bash
# Checks the deployment files offline:
# - deploy/k8s/*.yaml against the official Kubernetes API schemas (kubernetes-validate, which
#   bundles them; strict, so an unknown or misspelt field fails), for the oldest and the newest
#   Kubernetes version we support;
# - every pod template against the "restricted" Pod Security Standard (non-root, seccomp
#   RuntimeDefault, no privilege escalation, every capability dropped, no host namespaces or
#   host paths) and our own rules: a read-only root filesystem, an ephemeral-storage request,
#   Jobs that replace a pod only once it has failed and do not count evictions
#   (scripts/lib/check_k8s_rules.py);
# - deploy/k8s/kustomization.yaml: its resources exist and it sets the manifests' image;
# - the shell syntax (bash -n) of deploy/slurm/*.sbatch and the scripts/ that deploy uses.
#
#   scripts/check-deploy.sh [FILE.yaml ...]     (default: deploy/k8s/*.yaml)
#
# Installs kubernetes-validate into .venv/ on first use. Exits non-zero on any error.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
validate_version="1.37.0"
# 1.31: the first with elastic Indexed Jobs (scaling the workers) generally available.
k8s_versions=(1.31.0 1.37.0)

if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(0 if m.version('kubernetes-validate') == '$validate_version' else 1)" 2>/dev/null; then
  if [ ! -x "$venv/bin/python" ]; then
    echo "check-deploy: creating virtualenv $venv" >&2
    "${PYTHON:-python3}" -m venv "$venv" >&2
  fi
  echo "check-deploy: installing kubernetes-validate==$validate_version into $venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "kubernetes-validate==$validate_version" >&2
fi

if [ $# -gt 0 ]; then
  manifests=("$@")
else
  manifests=()
  for file in "$root"/deploy/k8s/*.yaml; do
    # The kustomization is kustomize's file, not an API object: checked below.
    [ "$(basename "$file")" = kustomization.yaml ] || manifests+=("$file")
  done
fi

failed=0
for version in "${k8s_versions[@]}"; do
  # --strict: properties the schema does not know are errors, not ignored.
  if ! "$venv/bin/kubernetes-validate" --strict --quiet -k "$version" "${manifests[@]}"; then
    echo "check-deploy: FAILED: Kubernetes $version schemas" >&2
    failed=1
  fi
done

if ! "$venv/bin/python" "$root/scripts/lib/check_k8s_rules.py" "$root/deploy/k8s/kustomization.yaml" "${manifests[@]}"; then
  echo "check-deploy: FAILED: Pod Security \"restricted\" or our deployment rules" >&2
  failed=1
fi

for script in "$root"/deploy/slurm/*.sbatch "$root"/scripts/{seaweedfs,slurm-local,check-deploy,test-distributed}.sh; do
  [ -f "$script" ] || continue
  if ! bash -n "$script"; then
    echo "check-deploy: FAILED: bash -n $script" >&2
    failed=1
  fi
done

if [ "$failed" -ne 0 ]; then
  exit 1
fi
echo "check-deploy: ${#manifests[@]} manifest files valid for Kubernetes ${k8s_versions[*]} (strict) and Pod Security \"restricted\"; shell scripts parse" >&2
