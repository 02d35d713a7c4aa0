@area-deployment
Feature: Deployment pods are created from the template and owned by the Deployment
  Every deployment interval the controller compares a Deployment with the pods that carry its
  controller owner reference and creates the missing ones from spec.template. Each pod carries a
  pod-template-hash label derived from the template and the default NoExecute tolerations. There
  are no ReplicaSets in between.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 2000Ki |

  @clause-DEPLOY-CREATE-MISSING
  Rule: missing pods are created from the template within one deployment interval

    Scenario: three replicas give three pods after one pass
      # rules out creating one pod per pass (1 pod) and counting the Deployment itself (2 pods)
      When the Deployment "web" is created with 3 replicas
      And the deployment interval passes
      Then the Deployment "web" has 3 pods
      And the Deployment "web" pods are:
        | image        | ready | count |
        | kube32/app:1 | False | 3     |
      And the Deployment "web" pods are made from its template
      # rules out creating on every pass whatever is there already (more than 3 after five passes)
      When 5 more seconds pass
      Then the Deployment "web" has 3 pods

    @interpretation
    Scenario: a Deployment without spec.replicas runs one pod
      # rules out treating a missing replicas field as 0
      When the Deployment "solo" is created with:
        """
        spec:
          replicas: null
        """
      And the deployment interval passes
      Then the Deployment "solo" has 1 pod

    Scenario: a pod removed behind the controller's back is recreated by the next pass
      # level-triggered: the next pass recounts from the API and does not trust what it did before
      # (the replacement is told apart by uid: it may carry the deleted pod's name)
      Given the Deployment "web" is created with 3 replicas
      When the deployment interval passes
      Then the Deployment "web" has 3 pods
      When the Deployment "web" loses one pod deleted with grace period 0
      Then the Deployment "web" has 2 pods
      When the deployment interval passes
      Then the Deployment "web" has 3 pods
      And the Deployment "web" pods do not include the deleted one

  @clause-DEPLOY-OWNED-PODS
  Rule: only pods carrying the Deployment's owner reference count

    Scenario: a bare pod with the Deployment's labels is neither counted nor adopted
      # rules out counting pods by label selector (the controller would create only 1 pod)
      When I create a pod "bare" with:
        """
        apiVersion: v1
        kind: Pod
        metadata:
          labels:
            app: web
        spec:
          containers:
            - name: main
              image: kube32/app:1
        """
      And the Deployment "web" is created with 2 replicas
      And the deployment interval passes
      Then the Deployment "web" has 2 pods
      And the Deployment "web" pods are controlled by it
      And the Deployment "web" left pod "bare" untouched

  @clause-DEPLOY-NO-REPLICASETS
  Rule: a Deployment owns its pods directly and no ReplicaSet ever appears

    Scenario: the pods' controller is the Deployment and there are no ReplicaSets
      # rules out an upstream-style ReplicaSet in between (the pods' controller would be a ReplicaSet)
      When the Deployment "web" is created with 2 replicas
      And the deployment interval passes
      Then the Deployment "web" has 2 pods
      And the Deployment "web" pods are controlled by it
      And the Deployment "web" leaves no ReplicaSets behind
      When the Deployment "web" image changes to "kube32/app:2"
      And the deployment interval passes
      Then the Deployment "web" leaves no ReplicaSets behind

  @clause-DEPLOY-POD-TEMPLATE-HASH
  Rule: pods carry a pod-template-hash that depends only on the template

    @interpretation
    Scenario: pods of one template share a hash of upstream's alphabet and are named after it
      When the Deployment "web" is created with 3 replicas
      And the deployment interval passes
      Then the Deployment "web" has 3 pods
      And the Deployment "web" pods carry one pod-template-hash of upstream's alphabet
      And the Deployment "web" pods are named after it and their pod-template-hash

    Scenario: the hash is stable when the template stays and changes when the template changes
      # rules out a hash of the whole Deployment (a scale-up changes spec but not the template)
      # and a counter or random value (the recreated pod would get another one)
      Given the Deployment "web" is created with 2 replicas
      When the deployment interval passes
      And the Deployment "web" pod-template-hash is remembered as "first"
      And the Deployment "web" is scaled to 4 replicas
      And the Deployment "web" loses one pod deleted with grace period 0
      And the deployment interval passes
      Then the Deployment "web" has 4 pods
      And the Deployment "web" pods carry the pod-template-hash remembered as "first"
      When the Deployment "web" image changes to "kube32/app:2"
      # two passes: a replacement may come with the pass that deleted its stale pod or with the next
      And 2 deployment intervals pass
      Then the Deployment "web" pods of image "kube32/app:2" carry a pod-template-hash other than "first"

    Scenario: a change to the template's metadata only is a template change
      # rules out a hash of the pod spec alone (the annotation would change nothing)
      Given the Deployment "web" is created with 2 replicas
      When the deployment interval passes
      And the Deployment "web" pod-template-hash is remembered as "first"
      And the Deployment "web" pod template gets annotation "release=b"
      And 5 seconds pass
      Then the Deployment "web" pods of image "kube32/app:1" carry a pod-template-hash other than "first"

  @clause-DEPLOY-DEFAULT-TOLERATIONS
  Rule: pods created by the controller get the default NoExecute tolerations they lack

    Scenario: a template without tolerations gives pods both defaults
      # rules out relying on the API's pod admission only (a controller writing pods straight
      # into its store would skip it) and DaemonSet-style tolerations without seconds
      When the Deployment "web" is created with 2 replicas
      And the deployment interval passes
      Then the Deployment "web" pods have these tolerations:
        | key                            | operator | effect    | tolerationSeconds |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute | default           |
        | node.kubernetes.io/unreachable | Exists   | NoExecute | default           |

    Scenario: a template that tolerates unreachable keeps its own and gains only not-ready
      # rules out adding both defaults blindly (three tolerations) and overwriting the 60 s
      When the Deployment "web" is created with:
        """
        spec:
          replicas: 1
          template:
            metadata:
              labels:
                app: web
            spec:
              containers:
                - name: main
                  image: kube32/app:1
              tolerations:
                - key: node.kubernetes.io/unreachable
                  operator: Exists
                  effect: NoExecute
                  tolerationSeconds: 60
        """
      And the deployment interval passes
      Then the Deployment "web" pods have these tolerations:
        | key                            | operator | effect    | tolerationSeconds |
        | node.kubernetes.io/unreachable | Exists   | NoExecute | 60                |
        | node.kubernetes.io/not-ready   | Exists   | NoExecute | default           |
