@area-job
Feature: Job admission, pods and deletion
  A Job's template must use restartPolicy Never or OnFailure. Its pods carry the default not-ready
  and unreachable tolerations, and they are deleted with the Job.

  Background:
    Given a kube32 control plane

  @clause-JOB-RESTART-POLICY
  Rule: only Never and OnFailure are accepted for a Job template

    Scenario: restartPolicy Always is refused
      When the Job "j" is created with restartPolicy "Always"
      Then the Job "j" is rejected as Invalid on "spec.template.spec.restartPolicy" saying:
        """
        Unsupported value: "Always": supported values: "OnFailure", "Never"
        """

    @interpretation
    Scenario: an unset restartPolicy means Always and is refused
      When the Job "j" is created with restartPolicy "unset"
      Then the Job "j" is rejected as Invalid on "spec.template.spec.restartPolicy" saying:
        """
        Unsupported value: "Always": supported values: "OnFailure", "Never"
        """

    Scenario Outline: restartPolicy <policy> is accepted
      When the Job "j" is created with restartPolicy "<policy>"
      Then the Job "j" is accepted

      Examples:
        | policy    |
        | Never     |
        | OnFailure |

  @clause-NODE-DEFAULT-TOLERATIONS-CONTROLLERS
  Rule: Job pods carry the default not-ready and unreachable tolerations

    Scenario: a Job pod tolerates both taints for the default time
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
      When the Job "j" is created
      And the workload interval passes
      Then the Job "j" pods tolerate "node.kubernetes.io/not-ready:NoExecute" for the default toleration seconds
      And the Job "j" pods tolerate "node.kubernetes.io/unreachable:NoExecute" for the default toleration seconds

  @clause-JOB-GC-ON-DELETE
  Rule: deleting the Job deletes its pods

    Scenario: running and finished pods follow their Job
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
      When the Job "j" is created with:
        | completions | parallelism |
        | 3           | 2           |
      And the workload interval passes
      And the Job "j" pods start
      And the Job "j" has one pod succeed
      And the Job "j" is deleted
      And the workload interval passes
      Then the Job "j" pods are all gone or terminating

    Scenario: deleting one Job leaves another Job's pods alone
      # Ruled out: deleting the pods of every Job (or every owned pod) when one Job goes.
      Given these Ready nodes:
        | name  | memory |
        | esp-a | 200Ki  |
      When the Job "j" is created
      And the Job "k" is created
      And the workload interval passes
      And the Job "j" pods start
      And the Job "k" pods start
      And the Job "j" is deleted
      And the workload interval passes
      Then the Job "j" pods are all gone or terminating
      And the Job "k" still has every pod it had
