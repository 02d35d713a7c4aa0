@area-endpoints
Feature: Ready and not-ready endpoints
  A selected pod that is Running with its Ready condition True is a ready endpoint: an address
  in Endpoints, ready and serving in EndpointSlices. Every other selected pod with an IP that is
  not being deleted is a not-ready endpoint.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |
      | node-b | 200Ki  |

  @clause-EP-READY-ADDRESSES
  Rule: a Ready Running pod is a ready address

    Scenario: a ready address names the pod's IP, its node and the Pod itself
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-b | app=web | ready |
      Then the Endpoints "web" list pod "a" as ready
      # the node is the pod's (node-b), not the first node; the reference is the Pod with its uid
      And the Endpoints "web" address of pod "a" names its IP, node "node-b" and the Pod
      And the EndpointSlices of Service "web" hold:
        | ports     | pod | ready | serving | terminating |
        | http=8080 | a   | true  | true    | false       |

    Scenario: several ready pods on different nodes are all addresses of one subset
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
        | b   | node-b | app=web | ready |
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | a, b      |                     |
      And the Endpoints "web" address of pod "a" names its IP, node "node-a" and the Pod
      And the Endpoints "web" address of pod "b" names its IP, node "node-b" and the Pod

  @clause-EP-NOT-READY-ADDRESSES
  Rule: every other listed pod is a not-ready address

    @needs-fake-kubelets
    Scenario: a Running pod that is not Ready and a Pending pod with an IP are not ready
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod      | node   | labels  | state           |
        | a        | node-a | app=web | not ready       |
        | starting | node-a | app=web | pending with IP |
        | c        | node-a | app=web | ready           |
      # leaving them out entirely, or counting any pod with an IP as ready, are both wrong
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | c         | a, starting         |
      And the EndpointSlices of Service "web" hold:
        | ports     | pod      | ready | serving | terminating |
        | http=8080 | a        | false | false   | false       |
        | http=8080 | starting | false | false   | false       |
        | http=8080 | c        | true  | true    | false       |

    @needs-fake-kubelets
    Scenario: a pod whose Ready condition is True but which is not Running is not ready
      # ready means Ready AND Running: rules out judging by the Ready condition alone
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state             |
        | a   | node-a | app=web | ready but pending |
        | c   | node-a | app=web | ready             |
      Then the Endpoints "web" have these subsets:
        | ports     | addresses | not ready addresses |
        | http=8080 | c         | a                   |
      And the EndpointSlices of Service "web" hold:
        | ports     | pod | ready | serving | terminating |
        | http=8080 | a   | false | false   | false       |
        | http=8080 | c   | true  | true    | false       |

    Scenario: a pod whose container is restarting is a not-ready address
      Given the Service "web" selecting "app=web"
      And Service pods:
        | pod | node   | labels  | state |
        | a   | node-a | app=web | ready |
      When the container of pod "a" restarts
      Then the Endpoints "web" list pod "a" as not ready
      And the EndpointSlices of Service "web" list pod "a" as not ready
