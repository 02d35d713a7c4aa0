"""Exact strings kube32 shares with upstream Kubernetes (reasons, messages, formats).

Copied from upstream source (see ../shared/notes/upstream-kubernetes-facts.md); tests assert
against these constants, never against retyped text.
"""

# Scheduler: FitError message (pkg/scheduler/framework/types.go)
NO_NODE_AVAILABLE_MSG = "0/{total} nodes are available"
NO_NODES_AVAILABLE = "no nodes available to schedule pods"

# Scheduler filter reasons (pkg/scheduler/framework/plugins/*)
REASON_UNSCHEDULABLE = "node(s) were unschedulable"
REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
REASON_NOT_READY = "node(s) were not ready"
REASON_NODE_NAME = "node(s) didn't match the requested node name"
REASON_NODE_SELECTOR = "node(s) didn't match Pod's node affinity/selector"
REASON_INSUFFICIENT = "Insufficient {resource}"

# Scheduler events and conditions (pkg/scheduler/schedule_one.go)
EVENT_FAILED_SCHEDULING = "FailedScheduling"
EVENT_SCHEDULED = "Scheduled"
SCHEDULED_MESSAGE = "Successfully assigned {namespace}/{name} to {node}"
POD_REASON_UNSCHEDULABLE = "Unschedulable"
SCHEDULER_COMPONENT = "default-scheduler"

# Node lifecycle (pkg/controller/nodelifecycle, pkg/controller/util/node)
NODE_STATUS_UNKNOWN = "NodeStatusUnknown"
NODE_STATUS_UNKNOWN_MESSAGE = "Kubelet stopped posting node status."
EVENT_NODE_NOT_READY = "NodeNotReady"
EVENT_NODE_READY = "NodeReady"
NODE_STATUS_CHANGE_MESSAGE = "Node {node} status is now: {status}"
NODE_CONTROLLER_COMPONENT = "node-controller"

# Eviction (kube32: the pod returns to Pending with reason Evicted)
POD_REASON_EVICTED = "Evicted"
EVENT_EVICTED = "Evicted"
CONDITION_DISRUPTION_TARGET = "DisruptionTarget"
# kube32 keeps the pod, but the DisruptionTarget condition copies upstream's taint-manager strings
# (pkg/controller/tainteviction/taint_eviction.go) so tools that key on them keep working.
DISRUPTION_TARGET_REASON = "DeletionByTaintManager"
DISRUPTION_TARGET_MESSAGE = "Taint manager: deleting due to NoExecute taint"
# Our own wording (the document quotes none): status.message of an evicted pod and its Evicted event.
EVICTED_MESSAGE = "Evicted from node {node}: taint {taint} is not tolerated"
EVENT_EVICTED_TYPE = "Warning"          # as the kubelet's Evicted events upstream
# Ready=True written back on recovery (upstream kubelet's strings, pkg/kubelet/nodestatus/setters.go)
KUBELET_READY = "KubeletReady"
KUBELET_READY_MESSAGE = "kubelet is posting ready status"

# Deployment conditions (pkg/controller/deployment/util/deployment_util.go)
DEPLOY_MIN_AVAILABLE = "MinimumReplicasAvailable"
DEPLOY_MIN_AVAILABLE_MSG = "Deployment has minimum availability."
DEPLOY_MIN_UNAVAILABLE = "MinimumReplicasUnavailable"
DEPLOY_MIN_UNAVAILABLE_MSG = "Deployment does not have minimum availability."
# Deployment Progressing condition (pkg/controller/deployment/progress.go; reasons from
# util/deployment_util.go). kube32 has no ReplicaSets, so the messages use upstream's
# `Deployment "<name>"` forms (the ones upstream writes when there is no new ReplicaSet).
DEPLOY_PROGRESSING = "ReplicaSetUpdated"
DEPLOY_PROGRESSING_MSG = 'Deployment "{name}" is progressing.'
DEPLOY_COMPLETE = "NewReplicaSetAvailable"
DEPLOY_COMPLETE_MSG = 'Deployment "{name}" has successfully progressed.'
DEPLOY_TIMED_OUT = "ProgressDeadlineExceeded"
DEPLOY_TIMED_OUT_MSG = 'Deployment "{name}" has timed out progressing.'

# Job conditions (pkg/controller/job/job_controller.go)
JOB_BACKOFF_LIMIT_EXCEEDED = "BackoffLimitExceeded"
JOB_BACKOFF_LIMIT_EXCEEDED_MSG = "Job has reached the specified backoff limit"

# Job completion (pkg/controller/job, batch/v1 JobReasonCompletionsReached; message as served by
# current clusters) and controller events (SuccessfulCreate/SuccessfulDelete, Completed).
JOB_COMPLETIONS_REACHED = "CompletionsReached"
JOB_COMPLETIONS_REACHED_MSG = "Reached expected number of succeeded pods"
JOB_COMPLETED_EVENT = "Completed"
JOB_COMPLETED_EVENT_MSG = "Job completed"
JOB_CONTROLLER_COMPONENT = "job-controller"
DAEMONSET_CONTROLLER_COMPONENT = "daemonset-controller"
EVENT_SUCCESSFUL_CREATE = "SuccessfulCreate"
EVENT_SUCCESSFUL_CREATE_MSG = "Created pod: {name}"
EVENT_SUCCESSFUL_DELETE = "SuccessfulDelete"
EVENT_SUCCESSFUL_DELETE_MSG = "Deleted pod: {name}"
EVENT_FAILED_CREATE = "FailedCreate"
EVENT_FAILED_CREATE_MSG = "Error creating: {error}"

# Workload validation (pkg/apis/apps/validation, pkg/apis/batch/validation): field.NotSupported.
UNSUPPORTED_VALUE_MSG = 'Unsupported value: "{value}": supported values: {supported}'
REASON_FIELD_NOT_SUPPORTED = "FieldValueNotSupported"
