@area-endpoints
Feature: Ports of Endpoints and EndpointSlices
  A Service port whose targetPort is a name takes its number from each selected pod's container
  ports, so pods can serve one Service port on different numbers. Pods whose ports come out
  different are kept apart: each subset or slice lists the ports all of its addresses serve.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   | memory |
      | node-a | 200Ki  |

  @clause-EP-NAMED-PORT-RESOLUTION
  Rule: a named targetPort resolves against each pod's own container ports

    Scenario: the endpoint port is the pod's container port, named after the Service port
      Given the Service "web":
        """
        spec:
          selector:
            app: web
          ports:
            - name: web
              port: 80
              targetPort: http
        """
      And Service pods:
        | pod | node   | labels  | container ports | state |
        | a   | node-a | app=web | http=8080       | ready |
      # copying the Service port (80) or naming the endpoint port after the container port ("http") is wrong
      Then the Endpoints "web" have these subsets:
        | ports    | addresses | not ready addresses |
        | web=8080 | a         |                     |
      And the EndpointSlices of Service "web" hold:
        | ports    | pod | ready | serving | terminating |
        | web=8080 | a   | true  | true    | false       |

    @interpretation
    Scenario: the container port must also have the Service port's protocol
      Given the Service "dns":
        """
        spec:
          selector:
            app: dns
          ports:
            - name: dns
              port: 53
              protocol: UDP
              targetPort: dns
        """
      And Service pods:
        | pod      | node   | labels  | container ports | state |
        | udp      | node-a | app=dns | dns=53/UDP      | ready |
        | tcp-only | node-a | app=dns | dns=5353/TCP    | ready |
      # matching the name alone would add tcp-only on 5353
      Then the Endpoints "dns" have these subsets:
        | ports      | addresses | not ready addresses |
        | dns=53/UDP | udp       |                     |

    @interpretation
    Scenario: a pod without the named port is left out for that port only
      Given the Service "web":
        """
        spec:
          selector:
            app: web
          ports:
            - name: web
              port: 80
              targetPort: http
            - name: metrics
              port: 9100
              targetPort: metrics
        """
      And Service pods:
        | pod  | node   | labels  | container ports         | state |
        | full | node-a | app=web | http=8080, metrics=9102 | ready |
        | lean | node-a | app=web | http=8080               | ready |
      # dropping lean altogether, or giving it a metrics port it does not have, are both wrong
      Then the Endpoints "web" have these subsets:
        | ports                      | addresses | not ready addresses |
        | web=8080, metrics=9102     | full      |                     |
        | web=8080                   | lean      |                     |

    @interpretation
    Scenario: a numeric targetPort is used as is, a missing one means the Service port
      Given the Service "web":
        """
        spec:
          selector:
            app: web
          ports:
            - name: numbered
              port: 80
              targetPort: 8080
            - name: same
              port: 81
        """
      And Service pods:
        | pod | node   | labels  | container ports | state |
        | a   | node-a | app=web | numbered=9999   | ready |
      # a container port that happens to share the port's name does not matter for a number
      Then the Endpoints "web" have these subsets:
        | ports                  | addresses | not ready addresses |
        | numbered=8080, same=81 | a         |                     |

  @clause-EP-NAMED-PORT-SUBSETS
  Rule: pods whose named ports resolve to different numbers are grouped apart

    Scenario: two pods naming http as 8080 and one as 9090 make two subsets and two slices
      Given the Service "web":
        """
        spec:
          selector:
            app: web
          ports:
            - name: web
              port: 80
              targetPort: http
        """
      And Service pods:
        | pod | node   | labels  | container ports | state     |
        | a   | node-a | app=web | http=8080       | ready     |
        | b   | node-a | app=web | http=8080       | ready     |
        | c   | node-a | app=web | http=9090       | not ready |
      # one group would give c a wrong port; a group per pod would split a from b
      Then the Endpoints "web" have these subsets:
        | ports    | addresses | not ready addresses |
        | web=8080 | a, b      |                     |
        | web=9090 |           | c                   |
      And the EndpointSlices of Service "web" hold:
        | ports    | pod | ready | serving | terminating |
        | web=8080 | a   | true  | true    | false       |
        | web=8080 | b   | true  | true    | false       |
        | web=9090 | c   | false | false   | false       |

    @interpretation
    Scenario: readiness does not split pods that share their port numbers
      Given the Service "web":
        """
        spec:
          selector:
            app: web
          ports:
            - name: web
              port: 80
              targetPort: http
        """
      And Service pods:
        | pod | node   | labels  | container ports | state     |
        | a   | node-a | app=web | http=8080       | ready     |
        | b   | node-a | app=web | http=8080       | not ready |
      # a subset (and a slice) per readiness state is not what grouping by port means
      Then the Endpoints "web" have these subsets:
        | ports    | addresses | not ready addresses |
        | web=8080 | a         | b                   |
      And the EndpointSlices of Service "web" hold:
        | ports    | pod | ready | serving | terminating |
        | web=8080 | a   | true  | true    | false       |
        | web=8080 | b   | false | false   | false       |

    Scenario: a pod changing its port number moves to the other group on the next read
      Given the Service "web":
        """
        spec:
          selector:
            app: web
          ports:
            - name: web
              port: 80
              targetPort: http
        """
      And Service pods:
        | pod | node   | labels  | container ports | state |
        | a   | node-a | app=web | http=8080       | ready |
        | b   | node-a | app=web | http=9090       | ready |
        | c   | node-a | app=web | http=9090       | no IP |
      Then the Endpoints "web" have these subsets:
        | ports    | addresses | not ready addresses |
        | web=8080 | a         |                     |
        | web=9090 | b         |                     |
      When the kubelet on node "node-a" starts pod "c"
      Then the EndpointSlices of Service "web" hold:
        | ports    | pod | ready | serving | terminating |
        | web=8080 | a   | true  | true    | false       |
        | web=9090 | b   | true  | true    | false       |
        | web=9090 | c   | true  | true    | false       |
