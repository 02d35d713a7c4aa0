@area-deployment
Feature: Rolling out a changed template
  A changed pod template is rolled out by replacing stale pods, never more than one per
  deployment interval; a change outside the template replaces nothing. Holding a ready stale pod
  back while fewer than spec.replicas minus maxUnavailable pods would stay ready (with a surge pod
  first where that budget is 0) is our reading, as upstream rolls out: the document ties
  maxUnavailable only to the status and conditions.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 2000Ki |

  @clause-DEPLOY-ONE-STALE-PER-PASS
  Rule: each pass replaces at most one stale pod

    @interpretation
    Scenario: stale pods are deleted in different passes
      # Works on any clock: the kubelet keeps deleted pods Terminating, and each deletion is
      # stamped with its time. Rules out deleting every stale pod in one pass (one second for
      # all three) and two per pass (two share a second). That the controller deletes gracefully
      # (deletionTimestamp and deletionGracePeriodSeconds tell when) is upstream's way, ours.
      Given Deployment pods are kept terminating by their kubelets
      And the Deployment "web" is created with:
        """
        spec:
          replicas: 3
          strategy:
            type: RollingUpdate
            rollingUpdate:
              maxUnavailable: 3
        """
      When the deployment interval passes
      Then the Deployment "web" has 3 pods
      When the Deployment "web" image changes to "kube32/app:2"
      And 5 seconds pass
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:2 | False | 3     |
      And the Deployment "web" terminating pods were deleted in 3 different seconds

    @needs-manual-clock
    Scenario: at most one stale pod goes per interval, until every pod is new
      # maxUnavailable 3 of 3 takes the budget out of play. Rules out replacing every stale pod in
      # one pass and replacing none; a replacement may come in the pass that deleted its stale pod
      # or in the next (both read "replaces one stale pod per pass").
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
      Then the Deployment "web" has 3 pods
      When the Deployment "web" image changes to "kube32/app:2"
      And the deployment interval passes
      Then the Deployment "web" has at least 2 pods of image "kube32/app:1"
      When the deployment interval passes
      Then the Deployment "web" has at least 1 pod of image "kube32/app:1"
      When 10 seconds pass
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:2 | False | 3     |

    @needs-manual-clock @interpretation
    Scenario: with an unlimited budget one pod is replaced per interval
      # Our pace: the replacement is created in the pass that deletes its stale pod.
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
      Then the Deployment "web" has 3 pods
      When the Deployment "web" image changes to "kube32/app:2"
      And the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | False | 2     |
        | kube32/app:2 | False | 1     |
      When the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | False | 1     |
        | kube32/app:2 | False | 2     |
      When the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:2 | False | 3     |

    @needs-manual-clock
    Scenario: a change to the template's labels only is rolled out one pod per interval too
      # rules out a hash of the pod spec alone (nothing would roll) and treating a metadata-only
      # change as needing no replacement pass by pass
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
      Then the Deployment "web" has 3 pods
      When the Deployment "web" pod-template-hash is remembered as "first"
      And the Deployment "web" pod template gets label "release=b"
      And the deployment interval passes
      Then the Deployment "web" has at least 2 pods with the pod-template-hash "first"
      When 10 seconds pass
      Then the Deployment "web" has 3 pods with a pod-template-hash other than "first"

    @needs-manual-clock @interpretation
    Scenario: with the default budget and pods that start at once, one stale pod fewer per interval
      # 4 replicas: budget 1, surge 1. Rules out replacing all at once and replacing the whole
      # budget (1 pod) plus the surge (1 pod) in one pass, which would leave 2 stale pods after
      # the first interval.
      Given Deployment pods are started as soon as they are bound
      And the Deployment "web" is created with 4 replicas
      When the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 4     |
      When the Deployment "web" image changes to "kube32/app:2"
      And the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 3     |
        | kube32/app:2 | True  | 1     |
      When the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 2     |
        | kube32/app:2 | True  | 2     |
      When the deployment interval passes
      And the deployment interval passes
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:2 | True  | 4     |

    Scenario: a change outside the template replaces no pod
      # rules out rolling on any spec change: a scale-up or a new label on the Deployment would
      # replace the pods that were there
      Given the Deployment "web" is created with 2 replicas
      When the deployment interval passes
      And the Deployment "web" pods are remembered
      And the Deployment "web" is scaled to 3 replicas
      And the Deployment "web" gets label "team=a"
      And 5 seconds pass
      Then the Deployment "web" has 3 pods
      And the Deployment "web" pods include the remembered ones

  @clause-DEPLOY-ROLLOUT-MAX-UNAVAILABLE @interpretation
  Rule: a ready stale pod is deleted only while replicas minus maxUnavailable pods stay ready

    Scenario: four replicas keep three ready pods while the new pods do not start
      # 25 % of 4 = 1 may be unavailable, with or without surge pods. Rules out ignoring the budget
      # (every stale pod would go) and a budget of 2 (two stale pods would go).
      Given the Deployment "web" is created with 4 replicas
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the Deployment "web" image changes to "kube32/app:2"
      And 5 seconds pass
      Then the Deployment "web" has at least 1 pod of image "kube32/app:2"
      And the Deployment "web" has at least 3 ready pods

    Scenario: four replicas lose at most one ready pod while the new pods do not start
      # 25 % of 4 = 1 may be unavailable; maxSurge 25 % of 4 = 1 extra pod. Rules out ignoring the
      # budget (every stale pod would go) and a budget of 2 (two stale pods would go).
      Given the Deployment "web" is created with 4 replicas
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the Deployment "web" image changes to "kube32/app:2"
      And 5 seconds pass
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 3     |
        | kube32/app:2 | False | 2     |
      When the Deployment "web" pods are started
      And 5 more seconds pass
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 1     |
        | kube32/app:2 | True  | 2     |
        | kube32/app:2 | False | 2     |

    Scenario: three replicas (budget 0) keep all three ready pods until a surge pod is ready
      # floor(25 % of 3) = 0 and maxSurge rounds up to 1, so upstream does not fall back to 1.
      # Rules out the fallback (a ready stale pod would go at once) and a rollout without surge
      # (no new pod would ever appear).
      Given the Deployment "web" is created with 3 replicas
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the Deployment "web" image changes to "kube32/app:2"
      And 5 seconds pass
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 3     |
        | kube32/app:2 | False | 1     |
      When the Deployment "web" pods are started
      And 5 more seconds pass
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 2     |
        | kube32/app:2 | True  | 1     |
        | kube32/app:2 | False | 1     |

    Scenario: a stale pod that is not ready is replaced even when the budget is used up
      # budget 0 (3 replicas): the not-ready stale pod is replaced at once, then one surge pod
      # waits for readiness. Rules out holding back stale pods that are not ready anyway (the
      # not-ready kube32/app:1 pod would still be there).
      Given the Deployment "web" is created with 3 replicas
      When the deployment interval passes
      And the Deployment "web" pods are started
      And the Deployment "web" gets 1 of its pods marked not ready
      And the Deployment "web" image changes to "kube32/app:2"
      And 5 seconds pass
      Then the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | True  | 2     |
        | kube32/app:2 | False | 2     |
