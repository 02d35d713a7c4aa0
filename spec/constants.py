"""Every non-time number and name the kube32 document gives, in one place.

Durations and intervals live in the timing profiles (``spec/profiles/*.yaml``). Code reads these
through the module (``constants.DEFAULT_POD_MEMORY``) so one edit changes every use.
"""

KIB = 1024

# Scheduler: a pod that declares no memory counts this much (document: "default to 16 KiB").
DEFAULT_POD_MEMORY = 16 * KIB

# Resource names the scheduler filters on, in the document's order.
MEMORY = "memory"
PSRAM_RESOURCES = ("esp32.io/psram", "esp.io/psram")
PERIPHERAL_RESOURCES = (
    "esp32.io/gpio",
    "esp32.io/i2c",
    "esp32.io/uart",
    "esp32.io/adc",
    "esp32.io/rmt-tx",
    "esp32.io/rmt-rx",
)
GPIO = "esp32.io/gpio"
# Named buses (esp32.io/i2c-bus-0, esp32.io/uart-1) each take one bus from the node's count.
NAMED_BUS_PREFIXES = {"esp32.io/i2c": "esp32.io/i2c", "esp32.io/uart": "esp32.io/uart"}
# Requests the scheduler ignores (validated by the kubelet capability firewall instead).
IGNORED_RESOURCE_PREFIXES = ("hardware.kube32.io/",)
GPIO_PIN_CLAIM_PATTERN = r"^esp32\.io/gpio-\d+$"

# Upstream's generated names and template hashes (apimachinery util/rand): an alphabet without
# vowels or 0, 1, 3, and the length of a generateName suffix.
SAFE_ENCODE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
GENERATED_SUFFIX_LENGTH = 5

# Node lifecycle: taints and namespace.
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_NOT_READY = "node.kubernetes.io/not-ready"
NODE_LEASE_NAMESPACE = "kube-node-lease"

# Deployment: maxUnavailable when the strategy does not say.
DEPLOYMENT_DEFAULT_MAX_UNAVAILABLE = "25%"
DEPLOYMENT_DEFAULT_MAX_SURGE = "25%"
DEPLOYMENT_DEFAULT_REPLICAS = 1
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"
# Deployment: stale pods replaced per controller pass on a template change (document: "one").
DEPLOYMENT_STALE_REPLACEMENTS_PER_PASS = 1
# Upstream apps/v1 default of spec.progressDeadlineSeconds (the document gives none).
DEPLOYMENT_DEFAULT_PROGRESS_DEADLINE_SECONDS = 600

# DaemonSet
DAEMONSET_DEFAULT_MAX_UNAVAILABLE = 1
CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash"
HOSTNAME_LABEL = "kubernetes.io/hostname"
DAEMONSET_RESTART_POLICIES = ("Always",)

# Job
JOB_DEFAULT_COMPLETIONS = 1
JOB_DEFAULT_PARALLELISM = 1
JOB_DEFAULT_BACKOFF_LIMIT = 6
JOB_RESTART_POLICIES = ("Never", "OnFailure")

# API server
MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024
DEFAULT_NAMESPACES = ("default", NODE_LEASE_NAMESPACE)

# Endpoints and EndpointSlices (upstream names; pkg/controller/endpoint, pkg/controller/endpointslice)
LABEL_SERVICE_NAME = "kubernetes.io/service-name"
LABEL_ENDPOINTSLICE_MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
ENDPOINTSLICE_CONTROLLER_NAME = "endpointslice-controller.k8s.io"
LABEL_ENDPOINTS_MANAGED_BY = "endpoints.kubernetes.io/managed-by"
ENDPOINTS_CONTROLLER_NAME = "endpoint-controller"
LABEL_HEADLESS_SERVICE = "service.kubernetes.io/headless"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
# Upstream's default --max-endpoints-per-slice (the document gives no number).
MAX_ENDPOINTS_PER_SLICE = 100
