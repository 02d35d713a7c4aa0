@area-endpoints
Feature: Endpoints and EndpointSlices are views computed when read
  The API server derives the Endpoints and EndpointSlices of a Service from the Service and its
  pods at the moment a client reads them. Nothing has to run in between, so the read right after
  a pod changes already shows the change; and since they are views, no client can write them.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |

  @clause-EP-COMPUTED-ON-READ
  Rule: the read right after a pod change already shows it

    Scenario: a pod turning ready, then not ready, moves on the very next read
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state     |
        | a   | node-a | app=web | not ready |
      # read before the change, so an implementation that caches its answers has something stale to serve
      Then the Endpoints "web" list pod "a" as not ready
      And the EndpointSlices of Service "web" list pod "a" as not ready
      When pod "a" becomes ready
      # no time passes: a controller that recomputes every few seconds still shows the old state
      Then the Endpoints "web" list pod "a" as ready
      And the EndpointSlices of Service "web" list pod "a" as ready
      When pod "a" becomes not ready
      Then the Endpoints "web" list pod "a" as not ready
      And the EndpointSlices of Service "web" list pod "a" as not ready

    Scenario: a pod that gets its IP is listed on the very next read
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
        | b   | node-a | app=web | no IP |
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | a         |                     |
      When the kubelet on node "node-a" starts pod "b"
      # a controller (or a cache) would still answer with pod a alone
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | a, b      |                     |
      And the EndpointSlices of Service "web" list pod "b" as ready

    Scenario: a pod whose container restarts is not ready on the very next read
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
      Then the EndpointSlices of Service "web" list pod "a" as ready
      When the container of pod "a" restarts
      Then the EndpointSlices of Service "web" list pod "a" as not ready
      And the Endpoints "web" list pod "a" as not ready

    Scenario: a pod relabelled out of the selector leaves on the very next read
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
        | b   | node-a | app=web | ready |
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | a, b      |                     |
      When the Service pod "b" is relabelled "app=db"
      # an answer computed before the label change still lists b
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | a         |                     |
      And the EndpointSlices of Service "web" do not list pod "b"

    Scenario: a Service that changes its selector lists its new pods on the very next read
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
        | b   | node-a | app=api | ready |
      Then the Endpoints "web" list pod "a" as ready
      And the EndpointSlices of Service "web" list pod "a" as ready
      When the Service "web" changes its selector to "app=api"
      # a view remembered per set of pods, blind to the Service itself, still lists a
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | b         |                     |
      And the EndpointSlices of Service "web" list pod "b" as ready
      And the EndpointSlices of Service "web" do not list pod "a"

    @interpretation
    Scenario: the Endpoints carry the Service's name, the slices its name as a label
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
      Then the Endpoints "web" list pod "a" as ready
      And the EndpointSlices of Service "web" are labelled with its name
      And the EndpointSlices of Service "web" have addressType "IPv4"

  @clause-EP-READ-ONLY
  Rule: clients cannot create, change or delete Endpoints or EndpointSlices

    Scenario Outline: a request to <verb> the Endpoints is refused and changes nothing
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
      When the Endpoints "web" receive a request to <verb> them
      Then the Endpoints write is refused with code 405 and reason "MethodNotAllowed"
      And the Endpoints of Service "web" are unchanged
      And the Endpoints "web" list pod "a" as ready

      Examples:
        | verb   |
        | create |
        | update |
        | patch  |
        | delete |

    Scenario Outline: a request to <verb> the EndpointSlices is refused and changes nothing
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
      When the EndpointSlices of Service "web" receive a request to <verb> them
      Then the EndpointSlices write is refused with code 405 and reason "MethodNotAllowed"
      And the EndpointSlices of Service "web" are unchanged
      And the EndpointSlices of Service "web" list pod "a" as ready

      Examples:
        | verb   |
        | create |
        | update |
        | patch  |
        | delete |
