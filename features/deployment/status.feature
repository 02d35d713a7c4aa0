@area-deployment
Feature: Deployment generation, status and conditions
  metadata.generation moves with the spec only. The controller keeps the Available and Progressing
  conditions in the Deployment's status, Available judged against maxUnavailable, which defaults to
  25 % of spec.replicas. The document names no other status field: upstream's observedGeneration
  and pod counters, the conditions' reasons and messages, and how 25 % of other replica counts
  rounds are our reading, judged at reference level.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 2000Ki |

  @clause-DEPLOY-GENERATION
  Rule: spec changes bump metadata.generation and status.observedGeneration follows

    Scenario: generation counts spec changes only
      # rules out bumping on metadata (label) and on the controller's own status writes; at
      # reference level, an observedGeneration that is never written or lags a change by more
      # than one pass (upstream's field: the document does not name it)
      Given the Deployment "web" is created with 2 replicas
      Then the Deployment "web" has generation 1
      When the deployment interval passes
      Then the Deployment "web" status shows:
        | field              | value |
        | observedGeneration | 1     |
      And the Deployment "web" has generation 1
      When the Deployment "web" gets label "team=a"
      Then the Deployment "web" has generation 1
      When the Deployment "web" is scaled to 3 replicas
      Then the Deployment "web" has generation 2
      When the deployment interval passes
      Then the Deployment "web" status shows:
        | field              | value |
        | observedGeneration | 2     |
      When the Deployment "web" image changes to "kube32/app:2"
      Then the Deployment "web" has generation 3
      When the deployment interval passes
      Then the Deployment "web" status shows:
        | field              | value |
        | observedGeneration | 3     |

    Scenario: a write through the scale subresource is a spec change
      Given the Deployment "web" is created with 2 replicas
      When the Deployment "web" is scaled to 4 replicas with a PATCH of its scale subresource
      Then the Deployment "web" has generation 2

  @clause-DEPLOY-STATUS-COUNTS @interpretation
  Rule: the status counts the Deployment's pods as upstream's counters do

    Scenario: three replicas of which two are ready
      # rules out copying spec.replicas into every count and counting ready as available only
      # after a further pass
      Given the Deployment "web" is created with 3 replicas
      When the deployment interval passes
      And the Deployment "web" gets 2 of its pods started
      And the deployment interval passes
      Then the Deployment "web" status shows:
        | field               | value |
        | replicas            | 3     |
        | updatedReplicas     | 3     |
        | readyReplicas       | 2     |
        | availableReplicas   | 2     |
        | unavailableReplicas | 1     |

    Scenario: during a rollout only pods of the new template are updated
      # rules out counting every pod as updated, and counting terminating pods in replicas
      Given the Deployment "web" is created with:
        """
        spec:
          replicas: 3
          strategy:
            type: RollingUpdate
            rollingUpdate:
              maxUnavailable: 1
              maxSurge: 0
        """
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the Deployment "web" image changes to "kube32/app:2"
      And the deployment interval passes
      # mid-rollout however it is paced: one pass replaces one stale pod of three
      Then the Deployment "web" has at least 1 pod of image "kube32/app:1"
      And the Deployment "web" has at least 1 pod of image "kube32/app:2"
      And the Deployment "web" status counts its pods

  @clause-DEPLOY-AVAILABLE-CONDITION
  Rule: Available is True while available pods reach spec.replicas minus maxUnavailable

    Scenario: four replicas with three and then two ready pods
      # budget 1 of 4: rules out requiring every pod (False at 3) and ignoring readiness
      Given the Deployment "web" is created with 4 replicas
      When the deployment interval passes
      And the Deployment "web" gets 3 of its pods started
      And the deployment interval passes
      Then the Deployment "web" has condition "Available" "True" with reason "MinimumReplicasAvailable" and message:
        """
        Deployment has minimum availability.
        """
      When the Deployment "web" gets 1 of its pods marked not ready
      And the deployment interval passes
      Then the Deployment "web" has condition "Available" "False" with reason "MinimumReplicasUnavailable" and message:
        """
        Deployment does not have minimum availability.
        """

  @clause-DEPLOY-MAX-UNAVAILABLE-DEFAULT
  Rule: maxUnavailable defaults to 25 % of spec.replicas, rounded down, as Kubernetes resolves it

    Scenario Outline: <replicas> replicas with <ready> ready pods are Available "<available>"
      Given the Deployment "web" is created with <replicas> replicas
      When the deployment interval passes
      And the Deployment "web" gets <ready> of its pods started
      And the deployment interval passes
      Then the Deployment "web" has condition "Available" "<available>" with reason "<reason>"

      Examples:
        | replicas | ready | available | reason                     |
        # 25 % of 4 = 1: rules out a budget of 0 (False)
        | 4        | 3     | True      | MinimumReplicasAvailable   |
        # and not 2 (50 %): rules out a larger default
        | 4        | 2     | False     | MinimumReplicasUnavailable |
        # 25 % of 8 = 2: a share of spec.replicas, not a fixed 1 (False)
        | 8        | 6     | True      | MinimumReplicasAvailable   |
        | 8        | 5     | False     | MinimumReplicasUnavailable |

      # how 25 % of other replica counts rounds is upstream's reading (ResolveFenceposts)
      @interpretation
      Examples:
        | replicas | ready | available | reason                     |
        # 1.75 rounds down to 1: rules out a budget of 0
        | 7        | 6     | True      | MinimumReplicasAvailable   |
        # 1.75 does not round up to 2: rules out ceil (True)
        | 7        | 5     | False     | MinimumReplicasUnavailable |
        # 0.75 rounds down to 0 and maxSurge rounds up to 1, so no fallback: rules out "at least 1"
        | 3        | 2     | False     | MinimumReplicasUnavailable |
        | 3        | 3     | True      | MinimumReplicasAvailable   |

    Scenario Outline: an explicit maxUnavailable <value> replaces the default
      Given the Deployment "web" is created with:
        """
        spec:
          replicas: 4
          strategy:
            type: RollingUpdate
            rollingUpdate:
              maxUnavailable: <value>
        """
      When the deployment interval passes
      And the Deployment "web" gets <ready> of its pods started
      And the deployment interval passes
      Then the Deployment "web" has condition "Available" "<available>" with reason "<reason>"

      Examples:
        | value | ready | available | reason                     |
        # 2 of 4 may be unavailable: rules out keeping the default of 1 (False)
        | 2     | 2     | True      | MinimumReplicasAvailable   |
        # 50 % of 4 = 2: a percentage is of spec.replicas
        | 50%   | 2     | True      | MinimumReplicasAvailable   |

      # 0 stays 0 only while maxSurge (which the document does not name) is not 0 too
      @interpretation
      Examples:
        | value | ready | available | reason                     |
        # none may be unavailable: rules out keeping the default of 1 (True)
        | 0     | 3     | False     | MinimumReplicasUnavailable |

    @interpretation
    Scenario: with maxSurge 0 both limits resolve to 0 and maxUnavailable falls back to 1
      # upstream ResolveFenceposts: rules out keeping a budget of 0 (False)
      Given the Deployment "web" is created with:
        """
        spec:
          replicas: 3
          strategy:
            type: RollingUpdate
            rollingUpdate:
              maxSurge: 0
        """
      When the deployment interval passes
      And the Deployment "web" gets 2 of its pods started
      And the deployment interval passes
      Then the Deployment "web" has condition "Available" "True" with reason "MinimumReplicasAvailable"

  @clause-DEPLOY-PROGRESSING-CONDITION
  Rule: Progressing reports a rollout in progress, its completion, and its deadline

    Scenario: a new Deployment progresses, and progresses again on a template change
      # rules out a Progressing condition that is never written, or written only once; what it
      # says once a rollout has finished is our reading (the next scenario)
      Given the Deployment "web" is created with 2 replicas
      When the deployment interval passes
      Then the Deployment "web" has condition "Progressing" "True" with reason "ReplicaSetUpdated" and message:
        """
        Deployment "web" is progressing.
        """
      When the Deployment "web" pods are started
      And the deployment interval passes
      And the Deployment "web" image changes to "kube32/app:2"
      And the deployment interval passes
      Then the Deployment "web" has condition "Progressing" "True" with reason "ReplicaSetUpdated"

    @interpretation
    Scenario: a finished rollout stays Progressing True with upstream's reason
      # upstream keeps Progressing True once the new pods are available (NewReplicaSetAvailable);
      # the document does not say what Progressing shows when nothing is left to roll out
      Given the Deployment "web" is created with 2 replicas
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the deployment interval passes
      Then the Deployment "web" has condition "Progressing" "True" with reason "NewReplicaSetAvailable" and message:
        """
        Deployment "web" has successfully progressed.
        """

    @interpretation
    Scenario: no progress for progressDeadlineSeconds turns Progressing False
      # The pods can never be scheduled. The first pass (t=1) makes progress; the deadline of 30 s
      # runs from then. Rules out a deadline counted from creation or never enforced.
      Given the Deployment "web" is created with:
        """
        spec:
          replicas: 1
          progressDeadlineSeconds: 30
          template:
            metadata:
              labels:
                app: web
            spec:
              nodeSelector:
                board: none
              containers:
                - name: main
                  image: kube32/app:1
        """
      When the deployment interval passes
      Then the Deployment "web" has condition "Progressing" "True" with reason "ReplicaSetUpdated"
      When 29 seconds pass
      Then the Deployment "web" has condition "Progressing" "True" with reason "ReplicaSetUpdated"
      When 3 more seconds pass
      Then the Deployment "web" has condition "Progressing" "False" with reason "ProgressDeadlineExceeded" and message:
        """
        Deployment "web" has timed out progressing.
        """

    @needs-manual-clock @interpretation
    Scenario: the progress deadline defaults to 600 seconds
      # rules out no default (never False) and a shorter one
      Given the Deployment "web" is created with:
        """
        spec:
          replicas: 1
          template:
            metadata:
              labels:
                app: web
            spec:
              nodeSelector:
                board: none
              containers:
                - name: main
                  image: kube32/app:1
        """
      When the deployment interval passes
      And 598 seconds pass
      Then the Deployment "web" has condition "Progressing" "True" with reason "ReplicaSetUpdated"
      When 4 more seconds pass
      Then the Deployment "web" has condition "Progressing" "False" with reason "ProgressDeadlineExceeded"
