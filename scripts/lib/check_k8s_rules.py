"""Checks deploy/k8s manifests against the "restricted" Pod Security Standard and our own
deployment rules; run by scripts/check-deploy.sh with the virtualenv's Python (PyYAML).

    check_k8s_rules.py KUSTOMIZATION MANIFEST...

Prints one line for each problem, naming the file, the object and the field; exits 1 if any.
"""
import os
import sys

import yaml


def check_pod(where, spec, errors):
    """The restricted profile's pod and container fields, a read-only root filesystem and an
    ephemeral-storage request."""
    pod = spec.get("securityContext") or {}
    if pod.get("runAsNonRoot") is not True:
        errors.append(f"{where}: securityContext.runAsNonRoot must be true")
    if pod.get("runAsUser") == 0:
        errors.append(f"{where}: securityContext.runAsUser must not be 0")
    if (pod.get("seccompProfile") or {}).get("type") not in ("RuntimeDefault", "Localhost"):
        errors.append(f"{where}: securityContext.seccompProfile.type must be RuntimeDefault or Localhost")
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(key):
            errors.append(f"{where}: {key} must not be set")
    for volume in spec.get("volumes") or []:
        if "hostPath" in volume:
            errors.append(f"{where}: volume {volume.get('name')} is a hostPath")
    for container in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        at = f"{where}: container {container.get('name')}"
        security = container.get("securityContext") or {}
        if security.get("allowPrivilegeEscalation") is not False:
            errors.append(f"{at}: securityContext.allowPrivilegeEscalation must be false")
        if security.get("privileged"):
            errors.append(f"{at}: securityContext.privileged must not be set")
        if security.get("runAsUser") == 0:
            errors.append(f"{at}: securityContext.runAsUser must not be 0")
        capabilities = security.get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            errors.append(f"{at}: securityContext.capabilities.drop must hold ALL")
        if set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}:
            errors.append(f"{at}: securityContext.capabilities.add may hold only NET_BIND_SERVICE")
        if security.get("readOnlyRootFilesystem") is not True:
            errors.append(f"{at}: securityContext.readOnlyRootFilesystem must be true")
        if "ephemeral-storage" not in ((container.get("resources") or {}).get("requests") or {}):
            errors.append(f"{at}: resources.requests must give ephemeral-storage")


def check_job(where, spec, errors):
    """A Job replaces a pod only once it has failed, and an eviction is not a failure."""
    if spec["template"]["spec"].get("restartPolicy") != "Never":
        errors.append(f"{where}: the pod's restartPolicy must be Never (a podFailurePolicy needs it)")
    if spec.get("podReplacementPolicy") != "Failed":
        errors.append(f"{where}: podReplacementPolicy must be Failed (no second pod while the first stops)")
    rules = (spec.get("podFailurePolicy") or {}).get("rules") or []
    ignores_disruptions = any(
        rule.get("action") == "Ignore" and any(c.get("type") == "DisruptionTarget" for c in rule.get("onPodConditions") or [])
        for rule in rules
    )
    if not ignores_disruptions:
        errors.append(f"{where}: podFailurePolicy must Ignore the DisruptionTarget condition (evictions are not failures)")
    if spec.get("completionMode") == "Indexed" and not spec.get("backoffLimitPerIndex"):
        errors.append(f"{where}: an Indexed Job needs backoffLimitPerIndex (one crash-looping index must not end the rest)")


def main(kustomization, files):
    errors, images = [], set()
    for path in files:
        with open(path) as file:
            documents = list(yaml.safe_load_all(file))
        for document in filter(None, documents):
            kind, spec = document.get("kind"), document.get("spec") or {}
            where = f"{os.path.basename(path)} ({kind} {(document.get('metadata') or {}).get('name')})"
            if kind == "Job":
                check_job(where, spec, errors)
                pod = spec["template"]["spec"]
            elif kind in ("Deployment", "StatefulSet", "DaemonSet"):
                pod = spec["template"]["spec"]
            elif kind == "Pod":
                pod = spec
            else:
                continue
            check_pod(where, pod, errors)
            images.update(c["image"].rsplit(":", 1)[0] for c in pod.get("containers") or [])
    if os.path.exists(kustomization):
        with open(kustomization) as file:
            config = yaml.safe_load(file)
        folder = os.path.dirname(kustomization)
        for resource in config.get("resources") or []:
            if not os.path.exists(os.path.join(folder, resource)):
                errors.append(f"kustomization.yaml: resource {resource} does not exist")
        named = {image.get("name") for image in config.get("images") or []}
        for image in sorted(images - named):
            errors.append(f"kustomization.yaml: images does not set {image}, which a manifest runs")
    for error in errors:
        print(f"check-deploy: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
