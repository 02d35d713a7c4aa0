@area-daemonset
Feature: DaemonSet restart policy
  A DaemonSet's pods must always be restarted: the API server refuses a DaemonSet whose template
  restartPolicy is anything but Always and stores nothing. Upstream's answer, a 422 Invalid Status
  naming the field, is our reading (reference level).

  Background:
    Given a kube32 control plane

  @clause-DS-RESTART-POLICY-ALWAYS
  Rule: only restartPolicy Always is accepted for a DaemonSet template

    Scenario Outline: restartPolicy <policy> is refused at create
      When the DaemonSet "d" is created with restartPolicy "<policy>"
      Then the DaemonSet "d" is rejected as Invalid on "spec.template.spec.restartPolicy" saying:
        """
        Unsupported value: "<policy>": supported values: "Always"
        """

      Examples:
        | policy    |
        | Never     |
        | OnFailure |

    Scenario: restartPolicy Always is accepted
      When the DaemonSet "d" is created with restartPolicy "Always"
      Then the DaemonSet "d" is accepted

    @interpretation
    Scenario: an unset restartPolicy means Always and is accepted
      When the DaemonSet "d" is created with restartPolicy "unset"
      Then the DaemonSet "d" is accepted

    Scenario: an update to restartPolicy Never is refused
      When the DaemonSet "d" is created with restartPolicy "Always"
      And the DaemonSet "d" is updated to restartPolicy "Never"
      Then the DaemonSet "d" is rejected as Invalid on "spec.template.spec.restartPolicy" saying:
        """
        Unsupported value: "Never": supported values: "Always"
        """
