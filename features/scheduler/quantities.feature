@area-scheduler @needs-exclusive-nodes
Feature: Quantities and node figures
  Amounts use the Kubernetes quantity suffixes (Ki, Mi, Gi binary; k, M, G decimal; m milli;
  decimals and exponents), an unrecognised suffix counts as 0, and a node's figure for a
  resource is its allocatable one, else its capacity.

  Background:
    Given a kube32 control plane

  @clause-SCHED-QUANTITY-GRAMMAR
  Rule: quantities are read with the Kubernetes suffixes

    Scenario Outline: a pod asking <pod memory> of memory on a node with <node memory>
      Given these Ready nodes:
        | name   | memory        | esp32.io/gpio |
        | node-a | <node memory> | 8             |
      When I create a pod "p" requesting:
        | resource | quantity     |
        | memory   | <pod memory> |
      Then pod "p" <outcome>

      Examples: the wrong reading each row rules out is in the last column
        | node memory | pod memory | outcome                   | rules out                   |
        | 1000        | 1k         | is bound to node "node-a" | k read as 1024              |
        | 999         | 1k         | is not bound              | k read as 0 or unknown      |
        | 1023        | 1Ki        | is not bound              | Ki read as 1000             |
        | 1024        | 1Ki        | is bound to node "node-a" | Ki read as more than 1024   |
        | 1048575     | 1Mi        | is not bound              | Mi read as 1000000          |
        | 1048576     | 1Mi        | is bound to node "node-a" | Mi read as more             |
        | 999999      | 1M         | is not bound              | M read as milli             |
        | 1000000     | 1M         | is bound to node "node-a" | M read as Mi                |
        | 1073741823  | 1Gi        | is not bound              | Gi read as 1000000000       |
        | 1073741824  | 1Gi        | is bound to node "node-a" | Gi read as more             |
        | 1000000000  | 1G         | is bound to node "node-a" | G read as Gi                |
        | 999999999   | 1G         | is not bound              | G read as 0 or unknown      |
        | 1Mi         | 1024Ki     | is bound to node "node-a" | suffixes on node figures    |
        | 1535        | 1.5Ki      | is not bound              | decimals dropped            |
        | 1536        | 1.5Ki      | is bound to node "node-a" | decimals misread            |
        | 1           | 1500m      | is not bound              | milli truncated, not rounded up |
        | 2           | 1500m      | is bound to node "node-a" | milli read as 1500          |
        | 999         | 1e3        | is not bound              | exponents ignored           |
        | 1000        | 1e3        | is bound to node "node-a" | exponents misread           |

    Scenario Outline: a pod asking <pod gpio> GPIO on a node with <node gpio>
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 200Ki  | <node gpio>   |
      When I create a pod "p" requesting:
        | resource      | quantity   |
        | esp32.io/gpio | <pod gpio> |
      Then pod "p" <outcome>

      Examples:
        | node gpio | pod gpio | outcome                   | rules out            |
        | 2         | 2000m    | is bound to node "node-a" | m ignored (2000)     |
        | 1         | 2000m    | is not bound              | m read as nothing    |
        | 1         | 1500m    | is not bound              | truncation to 1      |

  @clause-SCHED-QUANTITY-UNKNOWN-SUFFIX
  Rule: a quantity with a suffix Kubernetes does not know counts as 0

    Scenario: a pod asking "5X" GPIO is accepted and binds to a node without GPIO
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 200Ki  | 0             |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | esp32.io/gpio | 5X       |
      # rejecting the pod (422) or reading 5 would leave it without a node
      Then the create response for pod "p" names node "node-a"

    @interpretation
    Scenario: "1Xi" of memory fits a node with less than the 16 KiB default
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 8Ki    | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 1Xi      |
      # treating the amount as undeclared would count 16 KiB and leave it Pending
      Then pod "p" is bound to node "node-a"

    Scenario: a node reporting "300KB" of memory has none
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 300KB  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 1Ki      |
      # reading "300KB" as 300 kB would bind
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient memory.
        """

  @clause-SCHED-ALLOCATABLE-FALLBACK
  Rule: a node's figure is its allocatable one, else its capacity

    Scenario: allocatable wins over a larger capacity
      Given these Ready nodes:
        | name   | capacity memory | allocatable memory | esp32.io/gpio |
        | node-a | 100Ki           | 20Ki               | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 30Ki     |
      # using capacity would bind
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient memory.
        """

    Scenario: capacity is used when allocatable does not list the resource
      Given these Ready nodes:
        | name   | capacity memory | esp32.io/gpio |
        | node-a | 100Ki           | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 30Ki     |
      # reading allocatable only would see no memory
      Then pod "p" is bound to node "node-a"

    @interpretation
    Scenario: the fallback is decided per resource
      Given these Ready nodes:
        | name   | allocatable memory | capacity esp32.io/gpio |
        | node-a | 100Ki              | 8                      |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | memory        | 30Ki     |
        | esp32.io/gpio | 4        |
      # falling back only when allocatable is missing as a whole would see no GPIO
      Then pod "p" is bound to node "node-a"

    Scenario: a resource listed in neither is 0
      Given these Ready nodes:
        | name   | memory |
        | node-a | 100Ki  |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | esp32.io/gpio | 1        |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient esp32.io/gpio.
        """
