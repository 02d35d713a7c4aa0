@area-deployment
Feature: Scaling a Deployment and deleting it
  Surplus pods are deleted, pods that are not ready and pods of an older template first. The
  scale subresource reads and writes spec.replicas as a Scale, as kubectl scale uses it (upstream's
  autoscaling/v1 Scale with the current replicas and the selector in its status is our reading).
  Deleting a Deployment deletes its pods, and no other Deployment's.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 2000Ki |

  @clause-DEPLOY-DELETE-SURPLUS
  Rule: pods beyond spec.replicas are deleted within one deployment interval

    Scenario: scaling from 4 to 2 leaves 2 pods
      # rules out deleting one surplus pod per pass (3 would be left) and deleting them all
      Given the Deployment "web" is created with 4 replicas
      When the deployment interval passes
      And the Deployment "web" pods are started
      Then the Deployment "web" has 4 pods
      When the Deployment "web" is scaled to 2 replicas
      And the deployment interval passes
      Then the Deployment "web" has 2 pods
      And the Deployment "web" status shows:
        | field    | value |
        | replicas | 2     |

    Scenario: terminating pods are neither counted nor deleted again
      # The kubelet holds the deleted pods in Terminating. Rules out counting terminating pods
      # (the next pass would see 4 pods and delete the 2 live ones as well) and creating
      # replacements for them (there would be 4 live pods again). Graceful deletion (2 pods left
      # terminating) and the status counts are our reading (upstream's; the document says neither).
      Given Deployment pods are kept terminating by their kubelets
      And the Deployment "web" is created with 4 replicas
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the Deployment "web" is scaled to 2 replicas
      And 3 seconds pass
      Then the Deployment "web" has 2 pods
      And the Deployment "web" has 2 terminating pods
      And the Deployment "web" status shows:
        | field               | value |
        | replicas            | 2     |
        | readyReplicas       | 2     |
        | unavailableReplicas | 0     |

    Scenario: scaling to 0 deletes every pod
      Given the Deployment "web" is created with 2 replicas
      When the deployment interval passes
      And the Deployment "web" is scaled to 0 replicas
      And the deployment interval passes
      Then the Deployment "web" has 0 pods

  @clause-DEPLOY-SURPLUS-ORDER
  Rule: not-ready pods and pods of an older template are deleted first

    Scenario: the not-ready pod goes first
      # rules out newest-first and oldest-first alone: all three pods are equally old, so only
      # readiness tells the not-ready one apart
      Given the Deployment "web" is created with 3 replicas
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the Deployment "web" gets 1 of its pods marked not ready
      And the Deployment "web" is scaled to 2 replicas
      And the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 2     |

    @needs-manual-clock
    Scenario: scaling down mid-rollout deletes the stale pods and keeps the new one
      # One pass after the template change one pod of three is new (one stale pod per pass;
      # maxUnavailable 3 takes any availability budget out of play) and every pod is ready. Rules
      # out deleting the newest pods first (the new pod would go, and a stale one would stay or be
      # replaced by a pod that was not there before) and deleting by name or age alone.
      Given the Deployment "web" is created with:
        """
        spec:
          replicas: 3
          strategy:
            type: RollingUpdate
            rollingUpdate:
              maxUnavailable: 3
        """
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the Deployment "web" image changes to "kube32/app:2"
      And the Deployment "web" rolls on until it runs a pod of image "kube32/app:2"
      Then the Deployment "web" has at least 1 pod of image "kube32/app:1"
      When the Deployment "web" pods are remembered
      And the Deployment "web" is scaled to 1 replica
      And the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:2 | True  | 1     |
      And the Deployment "web" pods are all among the remembered ones

    @needs-manual-clock @interpretation
    Scenario: scaling 3 to 1 with one not-ready and one stale pod removes those two
      # The rollout below is held by its budget (maxUnavailable 1, maxSurge 0) with one ready
      # stale pod, one ready current pod and one current pod that never became ready.
      # Rules out: newest-first (the two current pods would go, leaving the stale one);
      # oldest-first (the stale and the ready current pod would go); not-ready-then-newest
      # (the not-ready and the ready current pod would go). Only "not ready, then stale" keeps
      # the ready current pod.
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
      And the Deployment "web" pods are started
      And the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 1     |
        | kube32/app:2 | True  | 1     |
        | kube32/app:2 | False | 1     |
      When the Deployment "web" is scaled to 1 replica
      And the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:2 | True  | 1     |

  @clause-DEPLOY-GC-ON-DELETE
  Rule: deleting a Deployment deletes its pods and only its pods

    Scenario: the deleted Deployment's pods go, another Deployment's pods stay
      # rules out deleting by label or by namespace: "other" shares the namespace and the node,
      # and its pod must be the same one afterwards (not deleted and recreated)
      Given the Deployment "web" is created with 2 replicas
      And the Deployment "other" is created with 1 replica
      When the deployment interval passes
      And the Deployment "web" pods are started
      Then the Deployment "web" has 2 pods
      When the Deployment "other" pods are remembered
      And the Deployment "web" is deleted
      And the deployment interval passes
      Then the Deployment "web" has no pods left
      And the Deployment "other" still has the remembered pods

  @clause-DEPLOY-SCALE-SUBRESOURCE
  Rule: the scale subresource reads and writes spec.replicas as a Scale

    Scenario: GET shows the desired and current replicas and the selector as a string
      # the desired count in spec.replicas at document level; the current count and the selector
      # string in status (upstream's autoscaling/v1 Scale) at reference level
      Given the Deployment "web" is created with 2 replicas
      When the deployment interval passes
      Then the Deployment "web" scale shows 2 desired and 2 current replicas with selector "app=web"

    Scenario Outline: writing the Scale with <verb> changes the pod count
      # kubectl scale sends a merge PATCH, or a PUT after a GET when given a precondition.
      # Rules out a scale endpoint that answers but does not write spec.replicas
      Given the Deployment "web" is created with 2 replicas
      When the deployment interval passes
      And the Deployment "web" is scaled to 5 replicas with a <verb> of its scale subresource
      Then the Deployment "web" scale write answered a Scale of 5 replicas
      And the Deployment "web" has spec.replicas 5
      When the deployment interval passes
      Then the Deployment "web" has 5 pods
      And the Deployment "web" scale shows 5 desired and 5 current replicas with selector "app=web"

      Examples:
        | verb  |
        | PUT   |
        | PATCH |

    Scenario: scaling down through the Scale deletes pods
      Given the Deployment "web" is created with 3 replicas
      When the deployment interval passes
      And the Deployment "web" is scaled to 1 replica with a PATCH of its scale subresource
      And the deployment interval passes
      Then the Deployment "web" has 1 pod
