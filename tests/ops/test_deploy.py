"""deploy/kubernetes validated offline against the Kubernetes schemas
(kubernetes-validate), and the properties docs/deploy.md promises."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from referee.cli import _parser
from referee.workers import KILL_MARGIN_SECONDS

# How long, at least, the drain delay leaves after readiness has failed for the
# endpoints' removal to reach kube-proxy, a mesh or clients resolving the headless
# Service (docs/deploy.md, Shutdown).
ENDPOINT_PROPAGATION_SECONDS = 3

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "deploy" / "kubernetes"
KUBERNETES_VERSION = "1.30.0"  # the oldest version the manifests target (gRPC probes: 1.24+)


def documents() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in sorted(MANIFESTS.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                docs.append((path.name, doc))
    return docs


def by_kind(kind: str) -> list[dict[str, Any]]:
    return [d for _, d in documents() if d["kind"] == kind]


@pytest.mark.parametrize(
    ("name", "doc"),
    [
        pytest.param(n, d, id=f"{d['kind']}/{d.get('metadata', {}).get('name', n)}")
        for n, d in documents()
    ],
)
def test_manifest_is_valid(name: str, doc: dict[str, Any]) -> None:
    if doc["kind"] == "Kustomization":  # not a Kubernetes API object
        listed = set(doc["resources"])
        assert listed == {p.name for p in MANIFESTS.glob("*.yaml")} - {name}
        return
    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def env_of(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}


def test_deployment_runs_as_documented() -> None:
    (deployment,) = by_kind("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 10001  # the image's user
    sc = container["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert {"requests", "limits"} <= set(container["resources"])
    # The HorizontalPodAutoscaler owns the replica count: a replicas field in the
    # manifest would scale the Deployment back to it on every `kubectl apply`.
    assert "replicas" not in deployment["spec"] and by_kind("HorizontalPodAutoscaler")
    # Requests equal limits for CPU and memory: the Guaranteed QoS class (a memory request
    # below its limit makes the pod Burstable), which the kubelet's static CPU manager
    # needs to give the pod whole CPUs of its own, and --engine auto to pin its workers.
    resources = container["resources"]
    assert set(resources["limits"]) == {"cpu", "memory"}
    assert resources["requests"] == resources["limits"]
    assert float(resources["limits"]["cpu"]).is_integer()
    env = env_of(container)
    # Every REFEREE_ variable set is a real setting, with a valid value.
    serve = _parser().parse_args(["serve"]).serve_parser
    known = {
        "REFEREE_" + a.option_strings[0][2:].upper().replace("-", "_")
        for a in serve._actions
        if a.option_strings and a.dest != "help"
    }
    assert {k for k in env if k.startswith("REFEREE_")} <= known
    # One worker per CPU of the limit.
    assert int(env["REFEREE_WORKERS"]) == int(container["resources"]["limits"]["cpu"])
    # Native gRPC probes on the plaintext health port.
    health = int(env["REFEREE_HEALTH_PORT"])
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == health
    assert container["readinessProbe"]["grpc"]["service"] == "referee.v1.RefereeService"
    # The only writable place is /tmp (prometheus-client's multiprocess files).
    assert [m["mountPath"] for m in container["volumeMounts"]] == ["/tmp"]


def test_probes_and_the_drain_fit_together() -> None:
    """The timings docs/deploy.md (Probes, Shutdown) promises: readiness sees
    NOT_SERVING while the pod still takes new calls, a single failed probe does not
    take the pod out, and the pod outlives the longest stop."""
    (deployment,) = by_kind("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = env_of(container)
    drain_delay = float(env["REFEREE_DRAIN_DELAY_SECONDS"])
    grace = float(env["REFEREE_GRACE_SECONDS"])
    ready = container["readinessProbe"]
    live = container["livenessProbe"]
    for probe in (ready, live):
        # A probe ends before the next is due (the default timeout is 1 s).
        assert probe.get("timeoutSeconds", 1) < probe["periodSeconds"]
    # Not out of the endpoints on one slow probe, nor in and out while probes land on
    # a hung worker now and then; back in at the first success.
    assert ready["failureThreshold"] >= 2
    assert ready.get("successThreshold", 1) == 1
    # On SIGTERM health says NOT_SERVING at once, and the server goes on taking new
    # calls for the drain delay: readiness notices (failureThreshold probes, one every
    # periodSeconds, NOT_SERVING answered at once), and the endpoints' removal reaches
    # the clients (a few seconds: ENDPOINT_PROPAGATION_SECONDS), before gRPC stops
    # taking them.
    assert (
        ready["periodSeconds"] * ready["failureThreshold"] + ENDPOINT_PROPAGATION_SECONDS
        <= drain_delay
    )
    # SIGTERM reaches the server at once: a preStop hook would hold it back, with health
    # still SERVING, and eat into the termination grace.
    assert "preStop" not in container.get("lifecycle", {})
    # The pod outlives the longest stop: drain delay, grace, then the supervisor's
    # SIGKILL of a worker still running (KILL_MARGIN_SECONDS later) and its exit.
    assert pod["terminationGracePeriodSeconds"] > drain_delay + grace + KILL_MARGIN_SECONDS
    # Liveness (health "" is NOT_SERVING too while draining) never kills a draining pod.
    assert live["periodSeconds"] * live["failureThreshold"] > pod["terminationGracePeriodSeconds"]


def test_services_hpa_and_disruption_budget() -> None:
    services = {s["metadata"]["name"]: s["spec"] for s in by_kind("Service")}
    assert services["referee-headless"]["clusterIP"] == "None"
    assert services["referee"]["type"] == "ClusterIP"
    health_ports = {8081}
    for spec in services.values():
        assert spec["selector"] == {"app.kubernetes.io/name": "referee"}
        assert not {p["port"] for p in spec["ports"]} & health_ports  # health stays private
    (hpa,) = by_kind("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == "referee"
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    assert hpa["spec"]["minReplicas"] >= 2
    (pdb,) = by_kind("PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"] == {"app.kubernetes.io/name": "referee"}
    (policy,) = by_kind("NetworkPolicy")
    allowed = {p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]}
    assert allowed == {50051, 9090}


def test_the_validator_rejects_a_broken_manifest() -> None:
    """The check above is real: a typo in a field name fails it."""
    (deployment,) = by_kind("Deployment")
    broken = yaml.safe_load(yaml.safe_dump(deployment))
    broken["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_dockerfile_runtime_stage() -> None:
    text = (ROOT / "Dockerfile").read_text()
    stages = text.split("\nFROM ")
    assert len(stages) == 3, "two stages: build and runtime"
    runtime = stages[-1]
    assert "slim" in runtime.splitlines()[0] and ":latest" not in text
    assert "USER 10001" in runtime
    assert "HEALTHCHECK" in runtime and "STOPSIGNAL SIGTERM" in runtime
    assert "org.opencontainers.image.source" in runtime
    for tool in ("gcc", "build-essential", "apt-get install"):
        assert tool not in runtime


# ------------------------------------------------------------------ the gRPC-Web gateway

WEB = MANIFESTS / "grpc-web"


def web_documents() -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.name, doc)
        for path in sorted(WEB.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]


@pytest.mark.parametrize(
    ("name", "doc"),
    [pytest.param(n, d, id=f"grpc-web/{d['kind']}") for n, d in web_documents()],
)
def test_grpc_web_manifest_is_valid(name: str, doc: dict[str, Any]) -> None:
    if doc["kind"] == "Kustomization":
        assert set(doc["resources"]) == {p.name for p in WEB.glob("*.yaml")} - {name}
        return
    kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_grpc_web_gateway_runs_as_documented() -> None:
    """docs/deploy.md "Browsers": its own pods (not the servers'), every variable a real
    setting of `referee grpc-web`, the target the base's Service, the drain and grace
    inside the termination grace, /healthz probes on its port, the service's selector."""
    docs = {d["kind"]: d for _, d in web_documents()}
    deployment, service = docs["Deployment"], docs["Service"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    (base,) = by_kind("Deployment")
    assert (
        labels["app.kubernetes.io/name"]
        != base["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
    ), "the gateway's pods must not join the servers' Services"
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["args"] == ["grpc-web"]
    env = env_of(container)
    web = _parser().parse_args(["grpc-web"]).grpc_web_parser
    # Each setting's variable, as its help names it ("env REFEREE_...").
    known = {m for a in web._actions for m in re.findall(r"env (REFEREE_\w+)", a.help or "")}
    assert set(env) <= known, set(env) - known
    parsed = _parser().parse_args(["grpc-web"])  # the defaults, for what env leaves unset
    assert env["REFEREE_GRPC_WEB_TARGET"].split(":") == ["referee", "50051"]
    (served,) = [s for s in by_kind("Service") if s["metadata"]["name"] == "referee"]
    assert [p["port"] for p in served["spec"]["ports"] if p["name"] == "grpc"] == [50051]
    drain = float(env.get("REFEREE_GRPC_WEB_DRAIN_DELAY_SECONDS", parsed.drain_delay_seconds))
    grace = float(env.get("REFEREE_GRPC_WEB_GRACE_SECONDS", parsed.grace_seconds))
    assert drain >= ENDPOINT_PROPAGATION_SECONDS + container["readinessProbe"]["periodSeconds"]
    assert pod["terminationGracePeriodSeconds"] > drain + grace
    port = int(env["REFEREE_GRPC_WEB_PORT"])
    metrics = int(env["REFEREE_GRPC_WEB_METRICS_PORT"])
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": port, "metrics": metrics}
    # Scraped where the gateway serves its metrics, through the Service too.
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(metrics)
    assert {p["name"]: p["targetPort"] for p in service["spec"]["ports"]} == {
        "http": "http",
        "metrics": "metrics",
    }
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == "/healthz"
    liveness = container["livenessProbe"]
    assert liveness["periodSeconds"] * liveness["failureThreshold"] > drain + grace
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
