"""The deployment files agree with each other and with the app: Dockerfile, compose.yaml
and deploy/kubernetes.yaml (probes on /healthz, resources, non-root, the app's port and
the metrics port, the autoscaler on the app's own series, buffering in the Ingresses)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.web.health import router as health_router

ROOT = Path(__file__).resolve().parents[2]
PORT = 8000
METRICS_PORT = 9464


def all_documents() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((ROOT / "deploy" / "kubernetes.yaml").read_text()) if d]


def documents() -> dict[str, dict[str, Any]]:
    """The manifest's documents by kind (of the Ingresses, the app's: ``ingresses``)."""
    docs = {doc["kind"]: doc for doc in all_documents()}
    docs["Ingress"] = ingresses()["attention-lab"]
    return docs


def ingresses() -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in all_documents() if d["kind"] == "Ingress"}


def container() -> dict[str, Any]:
    (only,) = documents()["Deployment"]["spec"]["template"]["spec"]["containers"]
    result: dict[str, Any] = only
    return result


def named_port(port: int | str) -> int:
    """A probe or Service port given by name resolves to the container's port number."""
    if isinstance(port, int):
        return port
    (match,) = [p["containerPort"] for p in container()["ports"] if p["name"] == port]
    return int(match)


def test_deployment_and_service_are_present_and_select_the_same_pods() -> None:
    docs = documents()
    deployment, service = docs["Deployment"], docs["Service"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert service["spec"]["selector"].items() <= labels.items()
    assert deployment["spec"]["replicas"] >= 2  # scaling out is the point


def test_container_ports_are_the_image_port_and_the_metrics_port() -> None:
    ports = {p["name"]: p["containerPort"] for p in container()["ports"]}
    assert ports == {"http": PORT, "metrics": METRICS_PORT}
    assert _env()["ATTENTION_LAB_METRICS_PORT"] == str(METRICS_PORT)
    # The Service (and so the Ingress) forwards the app's port only, never the metrics.
    (service_port,) = documents()["Service"]["spec"]["ports"]
    assert named_port(service_port["targetPort"]) == PORT


@pytest.mark.parametrize("probe", ["readinessProbe", "livenessProbe"])
def test_probes_get_healthz_on_the_container_port(probe: str) -> None:
    get = container()[probe]["httpGet"]
    assert get["path"] == "/healthz"
    assert named_port(get["port"]) == PORT
    assert "/healthz" in {getattr(route, "path", None) for route in health_router.routes}


def test_resources_are_requested_and_limited() -> None:
    resources = container()["resources"]
    assert {"cpu", "memory"} <= resources["requests"].keys()
    assert "memory" in resources["limits"]


def test_pods_run_as_a_non_root_user_without_privileges() -> None:
    pod = documents()["Deployment"]["spec"]["template"]["spec"]["securityContext"]
    assert pod["runAsNonRoot"] is True
    assert pod["runAsUser"] != 0
    own = container()["securityContext"]
    assert own["allowPrivilegeEscalation"] is False
    assert own["capabilities"]["drop"] == ["ALL"]


def dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text()


def test_dockerfile_two_pinned_stages_non_root_port_healthcheck_exec_cmd() -> None:
    text = dockerfile()
    bases = re.findall(r"^FROM\s+(\S+)", text, flags=re.MULTILINE)
    assert len(bases) == 2
    for base in bases:  # a full patch release, not a floating 3.12-slim
        assert re.fullmatch(r"python:3\.12\.\d+-slim-\w+(@sha256:[0-9a-f]{64})?", base), base
    (user,) = re.findall(r"^USER\s+(\S+)", text, flags=re.MULTILINE)
    assert user.split(":")[0] not in {"0", "root"}
    assert str(documents()["Deployment"]["spec"]["template"]["spec"]["securityContext"][
        "runAsUser"]) == user.split(":")[0]  # fmt: skip
    assert re.search(rf"^EXPOSE\s+{PORT}$", text, flags=re.MULTILINE)
    assert re.search(r"^HEALTHCHECK .*urllib\.request.*/healthz", text, flags=re.MULTILINE | re.S)
    (cmd,) = re.findall(r"^CMD\s+(\[.*\])$", text, flags=re.MULTILINE)
    argv = json.loads(cmd)  # exec form: a JSON array
    assert argv[0] == "attention-lab"
    assert argv[argv.index("--host") + 1] == "0.0.0.0"
    assert argv[argv.index("--port") + 1] == str(PORT)
    assert "--workers" not in argv  # ATTENTION_LAB_WORKERS decides
    assert "ATTENTION_LAB_WORKERS" in text


def test_dependencies_are_installed_from_the_lock_before_the_source_is_copied() -> None:
    text = dockerfile()
    lock = text.index("--requirement requirements.lock")
    source = text.index("COPY . .")
    assert lock < source
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    assert ignored[ignored.index("*") :].count("!requirements.lock") == 1


def test_lock_pins_every_runtime_dependency() -> None:
    lines = (ROOT / "requirements.lock").read_text().splitlines()
    pins = dict(line.split("==") for line in lines if line and not line.startswith("#"))
    normalised = {re.sub(r"[-_.]+", "-", name).lower() for name in pins}
    for dep in ("fastapi", "uvicorn", "numpy", "jinja2", "plotly", "pydantic-settings", "orjson",
                "safetensors"):  # fmt: skip
        assert dep in normalised, dep


def test_compose_builds_the_image_and_publishes_the_port_but_not_the_metrics() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    (service,) = compose["services"].values()
    assert service["build"] == "."
    assert any(str(p).endswith(f":{PORT}") for p in service["ports"])
    assert service["environment"]["ATTENTION_LAB_METRICS_PORT"] == str(METRICS_PORT)
    assert not any(str(METRICS_PORT) in str(p) for p in service["ports"])


def _env() -> dict[str, str]:
    return {e["name"]: str(e["value"]) for e in container().get("env", [])}


def test_forwarded_headers_are_trusted_only_from_the_ingress_range() -> None:
    import ipaddress

    value = _env()["FORWARDED_ALLOW_IPS"]
    assert value != "*"
    for part in value.split(","):
        assert ipaddress.ip_network(part.strip()).num_addresses > 1  # a range, not a host


def test_every_app_setting_in_the_manifest_is_a_valid_setting() -> None:
    from app.settings import Settings

    env = {k: v for k, v in _env().items() if k.startswith("ATTENTION_LAB_")}
    values = {k.removeprefix("ATTENTION_LAB_").lower(): v for k, v in env.items()}
    assert values.keys() <= Settings.model_fields.keys()
    Settings(**values)  # type: ignore[arg-type]


def test_memory_limit_holds_the_worst_admissible_mix() -> None:
    limits = container()["resources"]["limits"]
    requests = container()["resources"]["requests"]
    mib = {"Mi": 2**20, "Gi": 2**30}

    def size(text: str) -> int:
        return int(text[:-2]) * mib[text[-2:]]

    # benchmarks/load.py maxbody: 240 MB with ATTENTION_LAB_MAX_HEAVY=1, 425 MB with 2
    assert _env()["ATTENTION_LAB_MAX_HEAVY"] == "1"
    assert size(requests["memory"]) >= 1.5 * 240 * 10**6
    assert size(limits["memory"]) >= 1.5 * 425 * 10**6


def test_a_disruption_budget_covers_the_pods() -> None:
    docs = documents()
    pdb = docs["PodDisruptionBudget"]
    selector = docs["Deployment"]["spec"]["selector"]["matchLabels"]
    assert pdb["spec"]["selector"]["matchLabels"] == selector
    assert pdb["spec"]["maxUnavailable"] == 1


def test_the_ingress_sends_the_public_host_to_the_service() -> None:
    docs = documents()
    ingress, service = docs["Ingress"], docs["Service"]
    (rule,) = ingress["spec"]["rules"]
    (path,) = rule["http"]["paths"]
    backend = path["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"]
    assert backend["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}
    env = {e["name"]: e.get("value") for e in container()["env"]}
    assert env["ATTENTION_LAB_PUBLIC_URL"] == f"https://{rule['host']}"


def test_prometheus_scrapes_the_metrics_port() -> None:
    from app.web.health import router

    notes = documents()["Deployment"]["spec"]["template"]["metadata"]["annotations"]
    assert notes["prometheus.io/scrape"] == "true"
    assert int(notes["prometheus.io/port"]) == METRICS_PORT == named_port("metrics")
    assert notes["prometheus.io/path"] in {getattr(r, "path", None) for r in router.routes}


def test_no_ingress_reaches_the_metrics_port() -> None:
    for ingress in ingresses().values():
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                port = path["backend"]["service"]["port"]
                assert port == {"name": "http"}, ingress["metadata"]["name"]


def _ingress_annotation(name: str, key: str) -> str:
    value: str = ingresses()[name]["metadata"]["annotations"][f"nginx.ingress.kubernetes.io/{key}"]
    return value


def test_buffering_is_on_for_everything_but_the_streams() -> None:
    assert _ingress_annotation("attention-lab", "proxy-buffering") == "on"
    assert _ingress_annotation("attention-lab", "proxy-request-buffering") == "on"
    assert _ingress_annotation("attention-lab-streams", "proxy-buffering") == "off"
    (rule,) = ingresses()["attention-lab-streams"]["spec"]["rules"]
    assert rule["host"] == documents()["Ingress"]["spec"]["rules"][0]["host"]
    paths = {(p["path"], p["pathType"]) for p in rule["http"]["paths"]}
    assert paths == {("/api/v1/experiments", "Prefix")}
    from app.api.experiments import router

    assert router.prefix == "/api/v1/experiments"


def test_keda_scales_on_the_queue_and_the_refusals_of_the_app() -> None:
    from prometheus_client import REGISTRY

    from app.http import metrics  # noqa: F401 - registers the series

    docs = documents()
    assert "HorizontalPodAutoscaler" not in docs  # KEDA makes its own; two would fight
    scaled = docs["ScaledObject"]
    assert scaled["apiVersion"] == "keda.sh/v1alpha1"
    assert scaled["spec"]["scaleTargetRef"]["name"] == docs["Deployment"]["metadata"]["name"]
    assert 2 <= scaled["spec"]["minReplicaCount"] < scaled["spec"]["maxReplicaCount"]
    triggers = {t["name"] if "name" in t else t["type"]: t for t in scaled["spec"]["triggers"]}
    assert triggers.keys() == {"queue", "refusals", "cpu"}
    queries = [triggers[n]["metadata"]["query"] for n in ("queue", "refusals")]
    named = [set(re.findall(r"attention_lab_\w+", q)) for q in queries]
    assert named == [{"attention_lab_queue_length"}, {"attention_lab_admission_rejections_total"}]
    exported = {s.name for m in REGISTRY.collect() for s in m.samples}
    for series in set().union(*named):
        assert series in exported, series  # the app really exports what KEDA reads
    for name in ("queue", "refusals"):
        assert float(triggers[name]["metadata"]["threshold"]) > 0


def test_compose_publishes_on_loopback_unless_told_otherwise() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    (service,) = compose["services"].values()
    (published,) = service["ports"]
    # ${VAR:-default} interpolation: loopback by default, the classroom sets 0.0.0.0.
    assert published == "${ATTENTION_LAB_BIND:-127.0.0.1}:${ATTENTION_LAB_PORT:-8000}:8000"
    readme = (ROOT / "README.md").read_text()
    assert "ATTENTION_LAB_BIND=0.0.0.0" in readme


def test_the_worker_stops_by_itself_before_the_pods_grace_period_ends() -> None:
    from app.settings import Settings

    pod = documents()["Deployment"]["spec"]["template"]["spec"]
    env = {e["name"]: e.get("value") for e in pod["containers"][0].get("env", [])}
    timeout = int(env.get("ATTENTION_LAB_SHUTDOWN_TIMEOUT") or Settings().shutdown_timeout)
    # a few seconds left for the process to exit after uvicorn cancels its requests
    assert timeout + 5 <= pod["terminationGracePeriodSeconds"]
