"""deploy/: the Dockerfile, the compose stack, Prometheus, Grafana and the Kubernetes manifests,
checked offline with real validators (hadolint, the compose-spec JSON schema built into
check-jsonschema, kubernetes-validate's bundled OpenAPI schemas in strict mode) and against the
server itself: every ``serve`` flag and BUMMERL_* variable they use exists, every metric the
dashboard queries is one a running server exposes, and the health check script talks to a real
server's gRPC health service."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from bummerl import metrics
from bummerl.config import ENV_PREFIX, Settings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))  # the end-to-end tests' server processes
from e2e_servers import spawn_server  # noqa: E402

DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
BIN = Path(sys.executable).parent
GRPC_PORT, HTTP_PORT, METRICS_PORT = 50051, 8080, 9095
SERVE_ARGS = ["serve", "--host", "0.0.0.0", "--port", str(GRPC_PORT), "--http-port", str(HTTP_PORT),
              "--metrics-port", str(METRICS_PORT)]
SETTINGS_ENV = {ENV_PREFIX + f.name.upper() for f in dataclasses.fields(Settings)}


def tool(name: str) -> str:
    """A validator installed with the dev extra (next to this Python, else on PATH)."""
    path = BIN / name if (BIN / name).exists() else shutil.which(name)
    assert path, f"{name} is missing: it is a dev dependency (pip install -e '.[dev]')"
    return str(path)


def load_all(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def bummerl_services() -> dict[str, dict[str, Any]]:
    return {n: s for n, s in compose()["services"].items() if s.get("build", {}).get("dockerfile") == "deploy/Dockerfile"}


def serve_help() -> str:
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "serve", "--help"], capture_output=True, text=True,
                         check=True, timeout=60)
    return out.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- Dockerfile ------------------------------------------------------------------------------------


def dockerfile() -> str:
    return (DEPLOY / "Dockerfile").read_text()


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    return [(m.group(1).upper(), m.group(2).strip()) for m in re.finditer(r"^\s*([A-Za-z]+)\s+(.*)$", joined, re.M)]


def test_dockerfile_passes_hadolint() -> None:
    out = subprocess.run([tool("hadolint"), "--no-color", str(DEPLOY / "Dockerfile")], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_hadolint_is_a_real_check(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN pip install bummerl\nCMD bummerl serve\n")
    out = subprocess.run([tool("hadolint"), "--no-color", str(bad)], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "DL3007" in out.stdout  # latest tag


def test_dockerfile_runs_bummerl_serve_as_non_root_on_python_311_slim() -> None:
    ins = instructions(dockerfile())
    froms = [a.split()[0] for i, a in ins if i == "FROM"]
    assert froms and set(froms) == {"python:3.11-slim"}
    users = [a for i, a in ins if i == "USER"]
    assert users, "no USER: the server would run as root"
    uid = users[-1].split(":")[0]
    assert uid not in ("0", "root")
    (entry,) = [json.loads(a) for i, a in ins if i == "ENTRYPOINT"]
    (cmd,) = [json.loads(a) for i, a in ins if i == "CMD"]
    assert entry == ["bummerl"] and cmd == SERVE_ARGS
    assert {int(p) for i, a in ins if i == "EXPOSE" for p in a.split()} == {GRPC_PORT, HTTP_PORT, METRICS_PORT}
    run = " ".join(a for i, a in ins if i == "RUN")
    assert "pip wheel" in run and "pip install" in run  # the package itself is built and installed
    for i, a in ins:
        if i == "COPY" and "--from" not in a:
            *sources, _dest = a.split()
            for src in sources:
                assert (ROOT / src).exists(), f"COPY {src}: not in the repository"


def test_dockerfile_health_check_asks_the_grpc_health_service() -> None:
    ins = instructions(dockerfile())
    (health,) = [a for i, a in ins if i == "HEALTHCHECK"]
    cmd = json.loads(health.split("CMD", 1)[1])
    assert cmd[:2] == ["python", "/usr/local/bin/bummerl-healthcheck"] and cmd[2] == f"127.0.0.1:{GRPC_PORT}"
    assert any(i == "COPY" and a.split() == ["deploy/healthcheck.py", "/usr/local/bin/bummerl-healthcheck"]
               for i, a in ins)


def test_healthcheck_script_against_a_real_server() -> None:
    script = [sys.executable, str(DEPLOY / "healthcheck.py")]
    with spawn_server() as (_proc, target):
        ok = subprocess.run([*script, target], capture_output=True, text=True, timeout=30)
        assert ok.returncode == 0 and "SERVING" in ok.stdout, ok.stdout + ok.stderr
        game = subprocess.run([*script, target, "--service", "bummerl.v1.GameService"], capture_output=True,
                              text=True, timeout=30)
        assert game.returncode == 0
    down = subprocess.run([*script, target, "--timeout", "1"], capture_output=True, text=True, timeout=30)
    assert down.returncode == 1 and "UNREACHABLE" in down.stdout


def test_serve_flags_used_by_the_deploy_files_exist() -> None:
    flags = set(re.findall(r"--[a-z][a-z-]+", serve_help()))
    used = set(SERVE_ARGS[1::2])
    for svc in bummerl_services().values():
        used |= {a for a in svc["command"] if a.startswith("--")}
    (deployment,) = [d for d in load_all(K8S / "deployment.yaml") if d["kind"] == "Deployment"]
    used |= {a for a in deployment["spec"]["template"]["spec"]["containers"][0]["args"] if a.startswith("--")}
    assert used and used <= flags, used - flags


def test_bummerl_variables_in_deploy_files_are_real_settings() -> None:
    names: set[str] = set()
    for path in [*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml"), DEPLOY / "Dockerfile", DEPLOY / "README.md"]:
        names |= set(re.findall(r"\bBUMMERL_[A-Z_]+[A-Z]\b", path.read_text()))
    assert "BUMMERL_REDIS_URL" in names and "BUMMERL_ADMIN_TOKEN" in names
    assert names <= SETTINGS_ENV, sorted(names - SETTINGS_ENV)


# --- compose ----------------------------------------------------------------------------------------


def test_compose_file_is_valid_against_the_compose_spec() -> None:
    out = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec",
                          str(DEPLOY / "compose.yaml")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_compose_spec_check_is_a_real_check(tmp_path: Path) -> None:
    bad = tmp_path / "compose.yaml"
    bad.write_text((DEPLOY / "compose.yaml").read_text().replace("  restart: unless-stopped\n",
                                                                   "  restart: unless-stopped\n  replicaz: 3\n", 1))
    out = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "replicaz" in out.stdout


def test_compose_runs_three_replicas_on_one_redis_with_aof() -> None:
    spec = compose()
    servers = bummerl_services()
    assert len(servers) == 3
    redis = spec["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert any(str(v).endswith(":/data") for v in redis["volumes"])  # the AOF lives on a volume
    for name, svc in servers.items():
        env = svc["environment"]
        assert env["BUMMERL_REDIS_URL"].startswith("redis://redis:6379/"), name
        assert "BUMMERL_ADMIN_TOKEN" in env, name
        assert svc["command"] == SERVE_ARGS, name
        assert svc["depends_on"]["redis"]["condition"] == "service_healthy"
        assert svc["healthcheck"]["test"][1:3] == ["python", "/usr/local/bin/bummerl-healthcheck"]
    host_ports = [p.split(":")[0] for svc in servers.values() for p in svc["ports"]]
    assert len(host_ports) == len(set(host_ports))


def test_cluster_compose_runs_three_replicas_on_a_six_node_valkey_cluster() -> None:
    """deploy/compose.cluster.yaml: valid compose, six Valkey nodes in cluster mode with AOF, a
    one-shot init forming 3 masters + 3 replicas, and servers on it with durability=replicated."""
    path = DEPLOY / "compose.cluster.yaml"
    out = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    services = yaml.safe_load(path.read_text())["services"]
    nodes = sorted(n for n in services if n.startswith("valkey-") and n != "valkey-init")
    assert nodes == [f"valkey-{i}" for i in range(1, 7)]
    for n in nodes:
        cmd = services[n]["command"]
        assert cmd[cmd.index("--cluster-enabled") + 1] == "yes" and cmd[cmd.index("--appendonly") + 1] == "yes"
    init = " ".join(services["valkey-init"]["command"])
    assert "--cluster create" in init and "--cluster-replicas 1" in init and "for n in 1 2 3 4 5 6" in init
    servers = {n: s for n, s in services.items() if n.startswith("bummerl-")}
    assert len(servers) == 3
    for s in servers.values():
        assert s["environment"]["BUMMERL_REDIS_URL"] == "redis://valkey-1:6379"
        assert s["environment"]["BUMMERL_DURABILITY"] == "replicated"
        assert s["depends_on"]["valkey-init"]["condition"] == "service_completed_successfully"
        assert s["command"][:1] == ["serve"] and set(a for a in s["command"] if a.startswith("--")) <= set(
            re.findall(r"--[a-z][a-z-]+", serve_help()))


def test_compose_mounts_exist() -> None:
    for name, svc in compose()["services"].items():
        for volume in svc.get("volumes", []):
            source = str(volume).split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name}: {source}"


def test_prometheus_scrapes_every_replicas_metrics_port() -> None:
    prom = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    (job,) = [j for j in prom["scrape_configs"] if j["job_name"] == "bummerl"]
    targets = {t for sc in job["static_configs"] for t in sc["targets"]}
    assert targets == {f"{name}:{METRICS_PORT}" for name in bummerl_services()}
    assert job.get("metrics_path", "/metrics") == "/metrics"
    mounts = compose()["services"]["prometheus"]["volumes"]
    assert "./prometheus.yml:/etc/prometheus/prometheus.yml:ro" in mounts


# --- Grafana ------------------------------------------------------------------------------------------

PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool",
                "offset", "inf", "nan"}
#: Labels Prometheus adds to every series (job, instance) and our scrape config's replica label.
TARGET_LABELS = {"job", "instance", "replica"}


def promql_names(expr: str) -> tuple[set[str], set[str]]:
    """(metric names, label names) used by a PromQL expression."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    labels = set()
    for group in re.findall(r"\b(?:by|without|on|ignoring)\s*\(([^)]*)\)", e):
        labels |= {x.strip() for x in group.split(",") if x.strip()}
    e = re.sub(r"\b(?:by|without|on|ignoring)\s*\([^)]*\)", " ", e)
    for body in re.findall(r"\{([^}]*)\}", e):
        labels |= set(re.findall(r"([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)", body))
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    names = set()
    for m in re.finditer(r"(?<![\w.])([a-zA-Z_:][\w:]*)(\s*\()?", e):
        if not m.group(2) and m.group(1).lower() not in PROMQL_WORDS:
            names.add(m.group(1))
    return names, labels


def test_promql_parser() -> None:
    names, labels = promql_names('histogram_quantile(0.99, sum by (le, grpc_method) '
                                 '(rate(grpc_server_handling_seconds_bucket{job="bummerl",grpc_type="unary"}[5m]))) '
                                 '/ clamp_min(sum(up{job="x"}), 1e-9)')
    assert names == {"grpc_server_handling_seconds_bucket", "up"}
    assert labels == {"le", "grpc_method", "job", "grpc_type"}


def dashboard() -> dict[str, Any]:
    return json.loads((DEPLOY / "grafana" / "dashboards" / "bummerl.json").read_text())


def panels_with_targets() -> list[dict[str, Any]]:
    return [p for p in dashboard()["panels"] if p.get("type") != "row"]


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:  # noqa: S310 - loopback
        return r.read().decode()


def exposed_series(text: str) -> set[str]:
    """Series names a /metrics page offers: declared families (with the _bucket/_count/_sum of
    histograms) plus every sample name."""
    names = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M):
        names.add(name)
        if kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_count", f"{name}_sum"}
    names |= set(re.findall(r"^([a-zA-Z_:][\w:]*)[{ ]", text, re.M))
    return names


def test_dashboard_queries_only_metrics_the_server_exposes() -> None:
    port = free_port()
    with spawn_server(["--metrics-port", str(port)]) as (_proc, target):
        subprocess.run([sys.executable, str(DEPLOY / "healthcheck.py"), target], check=True, timeout=30,
                       capture_output=True)
        exposed = exposed_series(scrape(port))
    assert {"bummerl_active_matches", "grpc_server_handled_total"} <= exposed
    known_labels = TARGET_LABELS | {"le"}
    for m in (metrics.GRPC_SERVER_STARTED, metrics.GRPC_SERVER_HANDLED, metrics.GRPC_SERVER_HANDLING_SECONDS,
              metrics.GRPC_SERVER_MSG_SENT, metrics.ACTIONS, metrics.TIMEOUTS, metrics.MATCHES_CREATED,
              metrics.MATCHES_FINISHED, metrics.CAS_CONFLICTS, metrics.ACTIVE_MATCHES, metrics.GC_PAUSE_SECONDS):
        known_labels |= set(m._labelnames)
    used_metrics = set()
    panels = panels_with_targets()
    assert len(panels) >= 8
    for panel in panels:
        assert panel["targets"], panel["title"]
        for t in panel["targets"]:
            names, labels = promql_names(t["expr"])
            assert names, (panel["title"], t["expr"])
            assert names <= exposed | {"up"}, (panel["title"], names - exposed)
            assert labels <= known_labels, (panel["title"], labels - known_labels)
            used_metrics |= names
    # every game metric of metrics.py is on the dashboard
    game = {"bummerl_active_matches", "bummerl_actions_total", "bummerl_cas_conflicts_total",
            "bummerl_timeouts_total", "bummerl_matches_created_total", "bummerl_matches_finished_total"}
    assert game <= used_metrics, game - used_metrics
    assert {"bummerl_gc_pause_seconds_bucket", "bummerl_gc_pause_seconds_sum"} <= used_metrics


def test_dashboard_never_sums_the_cluster_wide_active_matches_gauge() -> None:
    """Every replica reports the same bummerl_active_matches (the whole Redis's count), so a sum
    over replicas would show N times the matches: the dashboard takes the max."""
    exprs = [t["expr"] for p in panels_with_targets() for t in p["targets"] if "bummerl_active_matches" in t["expr"]]
    assert exprs
    for expr in exprs:
        assert re.fullmatch(r'max\(bummerl_active_matches\{job="bummerl"\}\)', expr), expr


def test_dashboard_and_provisioning_fit_together() -> None:
    dash = dashboard()
    assert dash["uid"] == "bummerl" and dash["title"]
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))
    for p in dash["panels"]:
        g = p["gridPos"]
        assert g["x"] + g["w"] <= 24
    (ds,) = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yaml").read_text())["datasources"]
    assert ds["type"] == "prometheus" and ds["url"] == "http://prometheus:9090"
    for p in panels_with_targets():
        assert p["datasource"]["uid"] == ds["uid"]
        assert all(t["datasource"]["uid"] == ds["uid"] for t in p["targets"])
    (provider,) = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "dashboards" / "bummerl.yaml").read_text())["providers"]
    mounts = dict(str(v).rsplit(":ro", 1)[0].split(":", 1) for v in compose()["services"]["grafana"]["volumes"]
                  if str(v).startswith("./"))
    assert mounts["./grafana/dashboards"] == provider["options"]["path"]
    assert mounts["./grafana/provisioning"] == "/etc/grafana/provisioning"


# --- Kubernetes ----------------------------------------------------------------------------------------


def k8s_docs() -> list[tuple[Path, dict[str, Any]]]:
    return [(p, d) for p in sorted(K8S.glob("*.yaml")) if p.name != "kustomization.yaml" for d in load_all(p)]


def by_kind(kind: str) -> list[dict[str, Any]]:
    return [d for _p, d in k8s_docs() if d["kind"] == kind]


@pytest.mark.parametrize("path", sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml"))
def test_k8s_manifest_is_valid_in_strict_mode(path: str) -> None:
    for doc in load_all(K8S / path):
        kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)


def test_k8s_validation_is_a_real_check() -> None:
    (deployment,) = by_kind("Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"]["portt"] = 1
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, kubernetes_validate.latest_version(), strict=True)


def test_k8s_kinds_and_kustomization() -> None:
    kinds = {d["kind"] for _p, d in k8s_docs()}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ConfigMap", "Secret"} <= kinds
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    resources = set(kustomization["resources"])
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert resources == files - {"secret.example.yaml"}  # the placeholder secret is never applied


def test_k8s_deployment_probes_the_grpc_health_service() -> None:
    (deployment,) = by_kind("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["args"] == SERVE_ARGS
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": GRPC_PORT, "http": HTTP_PORT, "metrics": METRICS_PORT}
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["grpc"] == {"port": GRPC_PORT, "service": ""}, probe
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    assert pod["terminationGracePeriodSeconds"] > 5 + 5  # preStop sleep + the server's grace


def test_k8s_redis_url_comes_from_the_secret_and_settings_from_the_configmap() -> None:
    (deployment,) = by_kind("Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    refs = {next(iter(r)): next(iter(r.values()))["name"] for r in container["envFrom"]}
    (config,) = by_kind("ConfigMap")
    (secret,) = by_kind("Secret")
    assert refs == {"configMapRef": config["metadata"]["name"], "secretRef": secret["metadata"]["name"]}
    assert set(secret["stringData"]) == {"BUMMERL_REDIS_URL", "BUMMERL_ADMIN_TOKEN"}
    assert set(config["data"]) <= SETTINGS_ENV
    assert not {"BUMMERL_REDIS_URL", "BUMMERL_ADMIN_TOKEN"} & set(config["data"])  # secrets stay in the Secret
    Settings.from_env(config["data"])  # the values parse


def test_k8s_service_hpa_and_pdb_select_the_deployment() -> None:
    (deployment,) = by_kind("Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    port_names = {p["name"] for p in deployment["spec"]["template"]["spec"]["containers"][0]["ports"]}
    for service in by_kind("Service"):
        assert service["spec"]["selector"].items() <= pod_labels.items()
        assert {p["targetPort"] for p in service["spec"]["ports"]} <= port_names
    (hpa,) = by_kind("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": deployment["metadata"]["name"]}
    assert hpa["spec"]["minReplicas"] >= 2
    (pdb,) = by_kind("PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
