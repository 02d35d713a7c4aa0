@area-examples @needs-exclusive-nodes
Feature: The document's oversized-pod example
  The kube32 document shows `kubectl apply -f examples/oversized-pod.yaml` on a cluster of
  two boards: the pod lists as 0/1 Pending, and its events show one Warning FailedScheduling
  row with kube-scheduler's message. The same requests, made over the API.

  Background:
    Given a kube32 control plane
    # one S3 board with 2 MiB of PSRAM, one board without the selected label
    And these Ready nodes:
      | name   | memory | esp32.io/psram | esp32.io/gpio | labels         |
      | node-a | 200Ki  | 2Mi            | 8             | board=esp32-s3 |
      | node-b | 200Ki  |                | 8             |                |
    When I create a pod "oversized-pod" with:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: oversized-pod
        labels:
          app: oversized
      spec:
        nodeSelector:
          board: esp32-s3
        containers:
        - name: app
          image: registry.example/kube32/camera-stream:1.0
          resources:
            requests:
              memory: 64Ki
              esp32.io/psram: 8Mi
      """

  @clause-EXAMPLE-PENDING-POD-ROW
  Rule: the unplaced pod lists as READY 0/1, STATUS Pending, RESTARTS 0

    Scenario: kubectl get pod oversized-pod
      When 4 seconds pass
      Then pod "oversized-pod" is listed with READY "0/1", STATUS "Pending" and RESTARTS "0"

  @clause-EXAMPLE-OVERSIZED-POD-MESSAGE
  Rule: the example's message, word for word

    Scenario: the event and the PodScheduled condition carry the document's message
      Then a "Warning" event "FailedScheduling" about pod "oversized-pod" says word for word:
        """
        0/2 nodes are available: 1 Insufficient esp32.io/psram, 1 node(s) didn't match Pod's node affinity/selector.
        """
      And the PodScheduled condition of pod "oversized-pod" says:
        """
        0/2 nodes are available: 1 Insufficient esp32.io/psram, 1 node(s) didn't match Pod's node affinity/selector.
        """

  @clause-EXAMPLE-EVENT-ROW
  Rule: events listed by involvedObject.name show the FailedScheduling row

    Scenario: kubectl get events --field-selector involvedObject.name=oversized-pod
      When 4 seconds pass
      Then the events listed by involvedObject.name "oversized-pod" include the row:
        | type    | reason           | object            | message                                                                                                 |
        | Warning | FailedScheduling | pod/oversized-pod | 0/2 nodes are available: 1 Insufficient esp32.io/psram, 1 node(s) didn't match Pod's node affinity/selector. |
