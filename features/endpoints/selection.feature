@area-endpoints
Feature: Which pods a Service's Endpoints and EndpointSlices list
  Only a Service with a non-empty selector gets addresses. It selects, among the pods of its own
  namespace, those that have an IP and are not being deleted.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |

  @clause-EP-SELECTOR-REQUIRED
  Rule: a Service without a selector, or with an empty one, gets no addresses

    Scenario: a Service without a selector lists none of the running pods
      Given the Service "plain" without a selector
      And the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
      # treating a missing selector as "select everything" would list pod a
      Then the Endpoints "plain" list no addresses
      And the EndpointSlices of Service "plain" list no endpoints
      # the same pod is an address of a Service that does select it
      And the Endpoints "web" list pod "a" as ready

    Scenario: an empty selector selects nothing either
      Given the Service "empty":
        """
        spec:
          selector: {}
          ports:
            - name: http
              port: 80
              targetPort: 8080
        """
      And Service pods:
        | pod      | node   | labels  | state     |
        | a        | node-a | app=web | ready     |
        | no-label | node-a |         | not ready |
      # in LabelSelector terms an empty selector matches every pod; a Service's empty selector must not
      Then the Endpoints "empty" list no addresses
      And the EndpointSlices of Service "empty" list no endpoints

  @clause-EP-SELECTS-BY-LABELS
  Rule: a Service lists the pods whose labels carry its whole selector, and no others

    Scenario: only pods carrying every selected label with its value are listed
      Given the Service "web" selecting "app=web"
      And the Service "front" selecting "app=web,tier=front"
      And Service pods:
        | pod   | node   | labels             | state |
        | plain | node-a | app=web            | ready |
        | both  | node-a | app=web,tier=front | ready |
        | tier  | node-a | tier=front         | ready |
        | db    | node-a | app=db             | ready |
        | bare  | node-a |                    | ready |
      # matching any one selected label lists "tier" for front; matching keys without values lists "db"
      Then the Endpoints "web" have these subsets:
        | ports     | addresses   | not ready addresses |
        | http=8080 | plain, both |                     |
      And the Endpoints "front" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | both      |                     |
      And the EndpointSlices of Service "front" hold:
        | ports     | pod  | ready | serving | terminating |
        | http=8080 | both | true  | true    | false       |
      And the EndpointSlices of Service "web" do not list pod "db"

  @clause-EP-SAME-NAMESPACE
  Rule: a Service selects only pods of its own namespace

    Scenario: identically labelled pods in two namespaces stay with their own Service
      Given the Service "web" selecting "app=web"
      And the Service "web-2" in namespace "other":
        """
        spec:
          selector:
            app: web
          ports:
            - name: http
              port: 80
              targetPort: 8080
        """
      And Service pods:
        | pod   | node   | labels  | state | namespace |
        | here  | node-a | app=web | ready |           |
        | there | node-a | app=web | ready | other     |
      # selecting by labels across all namespaces would list both pods for both Services
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | here      |                     |
      And the EndpointSlices of Service "web" do not list pod "there"
      And the Endpoints "web-2" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | there     |                     |
      And the EndpointSlices of Service "web-2" do not list pod "here"

  @clause-EP-REQUIRES-POD-IP
  Rule: a selected pod without an IP is not listed

    Scenario: a bound pod is absent until its kubelet reports an IP
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | no IP |
      # a pod bound to a node but without status.podIP is no endpoint yet, not even a not-ready one
      Then the Endpoints "web" list no addresses
      And the EndpointSlices of Service "web" list no endpoints
      When the kubelet on node "node-a" starts pod "a"
      Then the Endpoints "web" list pod "a" as ready
      And the EndpointSlices of Service "web" list pod "a" as ready

    Scenario: pods without an IP are left out next to pods that have one
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod     | node   | labels  | state     |
        | a       | node-a | app=web | ready     |
        | b       | node-a | app=web | not ready |
        | waiting | node-a | app=web | no IP     |
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | a         | b                   |
      And the EndpointSlices of Service "web" hold:
        | ports     | pod | ready | serving | terminating |
        | http=8080 | a   | true  | true    | false       |
        | http=8080 | b   | false | false   | false       |

  @clause-EP-EXCLUDES-TERMINATING
  Rule: a pod being deleted is not listed, in Endpoints or in EndpointSlices

    @needs-fake-kubelets
    Scenario: a deleted Ready pod leaves both views while it is still terminating
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
        | b   | node-a | app=web | ready |
      And the Service pods on node "node-a" are slow to terminate
      Then the Endpoints "web" list pod "a" as ready
      When I delete pod "a"
      Then the Service pod "a" is still terminating
      # upstream EndpointSlices keep a terminating pod (terminating: true); kube32 drops it from both views
      And the Endpoints "web" do not list pod "a"
      And the EndpointSlices of Service "web" do not list pod "a"
      And the Endpoints "web" list pod "b" as ready
      And the EndpointSlices of Service "web" list pod "b" as ready

    @needs-fake-kubelets
    Scenario: a deleted pod that was not ready is not kept as a not-ready address
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state     |
        | a   | node-a | app=web | not ready |
      And the Service pods on node "node-a" are slow to terminate
      Then the Endpoints "web" list pod "a" as not ready
      When I delete pod "a"
      Then the Service pod "a" is still terminating
      # "not ready" is for pods that may still serve; a terminating pod is neither ready nor not ready here
      And the Endpoints "web" list no addresses
      And the EndpointSlices of Service "web" list no endpoints

    @interpretation
    Scenario: finished pods that keep their IP are not terminating, so they are listed as not ready
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod    | node   | labels  | state     |
        | done   | node-a | app=web | succeeded |
        | broken | node-a | app=web | failed    |
      # upstream drops Succeeded and Failed pods; kube32 only leaves out pods that are being deleted
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 |           | done, broken        |
      And the EndpointSlices of Service "web" list pod "done" as not ready
      And the EndpointSlices of Service "web" list pod "broken" as not ready
