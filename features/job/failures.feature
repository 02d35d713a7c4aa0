@area-job
Feature: Job failures and the backoff limit
  Each pod that ends in phase Failed counts against the Job's backoffLimit (default 6) and is
  replaced while the limit holds. When the failures exceed the limit the Job's active pods are
  deleted and it gets Failed=True with reason BackoffLimitExceeded. A container restarted in place
  under restartPolicy OnFailure is not a failure.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name  | memory |
      | esp-a | 200Ki  |

  @clause-JOB-FAILED-POD-REPLACED
  Rule: a failed pod is counted and replaced while the limit holds

    Scenario: the only pod fails and a new one starts
      When the Job "j" is created
      And the workload interval passes
      And the Job "j" pods start
      And the Job "j" has one pod fail
      And the workload interval passes
      Then the Job "j" has 1 active pod
      And the Job "j" has 2 pods in total
      And the Job "j" status shows:
        | failed | active |
        | 1      | 1      |

  @clause-JOB-BACKOFF-LIMIT
  Rule: the Job fails when its failed pods exceed backoffLimit

    Scenario Outline: backoffLimit <limit> survives <limit> failures and fails on the next
      # Ruled out: failing when the failures reach the limit (">=" instead of ">").
      When the Job "j" is created with:
        | backoffLimit |
        | <limit>      |
      And the Job "j" has <limit> pods fail one after another
      And the workload interval passes
      Then the Job "j" has no condition "Failed"
      And the Job "j" has 1 active pod
      When the Job "j" has one pod fail
      And the workload interval passes
      Then the Job "j" has condition "Failed" "True" with reason "BackoffLimitExceeded" and message:
        """
        Job has reached the specified backoff limit
        """

      Examples:
        | limit |
        | 0     |
        | 2     |
        | 4     |

    Scenario: succeeded pods are not failed pods
      # Ruled out: counting every finished pod against the limit (backoffLimit 0 fails on the first success).
      When the Job "j" is created with:
        | completions | parallelism | backoffLimit |
        | 3           | 1           | 0            |
      And the workload interval passes
      And the Job "j" has one pod succeed
      And the workload interval passes
      And the Job "j" has one pod succeed
      And the workload interval passes
      Then the Job "j" has no condition "Failed"
      And the Job "j" has 1 active pod

  @clause-JOB-BACKOFF-LIMIT-DEFAULT
  Rule: without backoffLimit the seventh failure fails the Job

    Scenario: six failures are survived, the seventh is not
      When the Job "j" is created
      And the Job "j" has 6 pods fail one after another
      And the workload interval passes
      Then the Job "j" has no condition "Failed"
      And the Job "j" has 1 active pod
      When the Job "j" has one pod fail
      And the workload interval passes
      Then the Job "j" has condition "Failed" "True" with reason "BackoffLimitExceeded" and message:
        """
        Job has reached the specified backoff limit
        """

  @clause-JOB-FAILED-DELETES-ACTIVE
  Rule: a Job that failed deletes its active pods and starts no more

    Scenario: the surviving pod is deleted and nothing replaces it
      # Ruled out: leaving the running pod (2 pods), or replacing the failure (a new active pod).
      When the Job "j" is created with:
        | completions | parallelism | backoffLimit |
        | 4           | 2           | 0            |
      And the workload interval passes
      And the Job "j" pods start
      And the Job "j" has one pod fail
      And the workload interval passes
      Then the Job "j" has condition "Failed" "True"
      And the Job "j" has 0 active pods
      When 5 seconds pass
      Then the Job "j" has 0 active pods
      And the Job "j" has 1 pod in total

  @clause-JOB-ONFAILURE-RESTARTS-NOT-FAILURES
  Rule: under OnFailure a container restarted in place is not a failed pod

    Scenario: three restarts with backoffLimit 1 neither fail the Job nor count
      # Ruled out: upstream's rule, where restarts count toward the limit under OnFailure.
      When the Job "j" is created with:
        | restartPolicy | backoffLimit |
        | OnFailure     | 1            |
      And the workload interval passes
      And the Job "j" pods start
      And the Job "j" pod containers restart 3 times
      And 5 seconds pass
      Then the Job "j" has no condition "Failed"
      And the Job "j" has 1 pod in total
      And the Job "j" status shows:
        | active | failed |
        | 1      | 0      |
      When the Job "j" pods succeed
      And the workload interval passes
      Then the Job "j" has condition "Complete" "True"
