@area-scheduler @needs-exclusive-nodes
Feature: Memory filter
  A pod's memory is, per container, its memory request, else its memory limit; a pod that
  declares no memory at all counts 16 KiB. It must fit within what is left of the node's
  allocatable memory.

  Background:
    Given a kube32 control plane

  @clause-SCHED-FILTER-MEMORY
  Rule: the pod's memory must be at most the node's memory

    Scenario: a request equal to the node's memory fits
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 100Ki    |
      # a strict "less than" comparison would leave it Pending
      Then pod "p" is bound to node "node-a"

    Scenario: one byte more than the node's memory does not fit
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 102401   |
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient memory.
        """

  @clause-SCHED-MEMORY-LIMIT-FALLBACK
  Rule: without a memory request, the memory limit counts

    Scenario: a limit larger than the node keeps the pod off it
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" limited to:
        | resource | quantity |
        | memory   | 120Ki    |
      # ignoring the limit would count the 16 KiB default and bind
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient memory.
        """

    Scenario: a limit that fits binds
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" limited to:
        | resource | quantity |
        | memory   | 100Ki    |
      Then pod "p" is bound to node "node-a"

    @interpretation
    Scenario: the request wins over the limit in the same container
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" with:
        """
        spec:
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 60Ki
                limits:
                  memory: 200Ki
        """
      # counting the limit (200Ki) would leave it Pending
      Then pod "p" is bound to node "node-a"

    @interpretation
    Scenario: the fallback is applied container by container
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 100Ki  | 8             |
      When I create a pod "p" with:
        """
        spec:
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 50Ki
            - name: sidecar
              image: kube32/app:1
              resources:
                limits:
                  memory: 60Ki
        """
      # counting requests only when any container has one would see 50Ki and bind
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient memory.
        """

  @clause-SCHED-MEMORY-DEFAULT
  Rule: a pod that declares no memory counts 16 KiB

    Scenario: a node with exactly 16 KiB takes a pod without memory declarations
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 16Ki   | 8             |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | esp32.io/gpio | 1        |
      Then pod "p" is bound to node "node-a"

    Scenario: a node one byte short of 16 KiB does not
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 16383  | 8             |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | esp32.io/gpio | 1        |
      # a scheduler without the default counts 0 bytes and binds
      Then pod "p" is not bound
      And a "Warning" event "FailedScheduling" about pod "p" says:
        """
        0/1 nodes are available: 1 Insufficient memory.
        """

    @interpretation
    Scenario: the default is per pod, not per container
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 16Ki   | 8             |
      When I create a pod "p" with:
        """
        spec:
          containers:
            - name: main
              image: kube32/app:1
            - name: sidecar
              image: kube32/app:1
        """
      # 16 KiB per container would need 32 KiB
      Then pod "p" is bound to node "node-a"

    @interpretation
    Scenario: a pod that declares memory in one container gets no default for the others
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 10Ki   | 8             |
      When I create a pod "p" with:
        """
        spec:
          containers:
            - name: main
              image: kube32/app:1
              resources:
                requests:
                  memory: 8Ki
            - name: sidecar
              image: kube32/app:1
        """
      # adding 16 KiB for the undeclared container would need 24 KiB
      Then pod "p" is bound to node "node-a"
