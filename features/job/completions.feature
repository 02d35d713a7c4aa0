@area-job
Feature: Job completions and parallelism
  A Job starts pods from its template until `completions` of them (default 1) have Succeeded, with
  at most `parallelism` (default 1) active at a time; then it gets the Complete condition and a
  completionTime. The document names no status field besides the conditions: upstream's counters
  of active, ready, succeeded and failed pods, startTime and completionTime are our reading.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name  | memory |
      | esp-a | 200Ki  |

  @clause-JOB-RUN-TO-COMPLETIONS
  Rule: pods are started until completions pods have succeeded, one by default

    Scenario Outline: completions <completions> means <total> pods, each succeeding
      # Ruled out: stopping after the first success; one pod too many (">" instead of ">=").
      When the Job "j" is created with:
        | completions   | parallelism |
        | <completions> | 1           |
      And the Job "j" pods keep succeeding until it is Complete
      Then the Job "j" has condition "Complete" "True"
      And the Job "j" has <total> pods in total

      Examples:
        | completions | total |
        | 3           | 3     |
        | 5           | 5     |
        | unset       | 1     |

    Scenario: no pod is started once enough pods have succeeded
      When the Job "j" is created with:
        | completions | parallelism |
        | 2           | 1           |
      And the workload interval passes
      And the Job "j" pods succeed
      And the workload interval passes
      Then the Job "j" has 1 active pod
      When the Job "j" pods succeed
      And 5 seconds pass
      Then the Job "j" has 0 active pods
      And the Job "j" has 2 pods in total
      And the Job "j" pods are made from its template

  @clause-JOB-PARALLELISM
  Rule: at most parallelism pods are active at once, one by default

    Scenario Outline: completions <completions> with parallelism <parallelism> runs <active> pods at once
      When the Job "j" is created with:
        | completions   | parallelism   |
        | <completions> | <parallelism> |
      And the workload interval passes
      Then the Job "j" has <active> active pods
      When 3 seconds pass
      Then the Job "j" has <active> active pods

      Examples:
        # 5/2: ignoring parallelism would start 5. 3/unset: a default of "completions" would start 3.
        | completions | parallelism | active |
        | 5           | 2           | 2      |
        | 3           | unset       | 1      |
        | 4           | 3           | 3      |

    Scenario: completions 3 with parallelism 2 never runs more than 2 pods at once
      When the Job "j" is created with:
        | completions | parallelism |
        | 3           | 2           |
      And the Job "j" pods keep succeeding until it is Complete
      Then the Job "j" has condition "Complete" "True"
      And the Job "j" never had more than 2 active pods at once
      And the Job "j" had 2 active pods at once
      And the Job "j" has 3 pods in total

    @interpretation
    Scenario: no more pods run than completions are still missing
      # Ruled out: filling up to parallelism (2 pods for the last completion, 4 pods in total).
      When the Job "j" is created with:
        | completions | parallelism |
        | 3           | 2           |
      And the workload interval passes
      Then the Job "j" has 2 active pods
      When the Job "j" pods succeed
      And the workload interval passes
      Then the Job "j" has 1 active pod
      And the Job "j" status shows:
        | succeeded | active |
        | 2         | 1      |

  @clause-JOB-COMPLETE-CONDITION
  Rule: when enough pods have succeeded the Job is Complete

    Scenario: the last success completes the Job
      When the Job "j" is created with:
        | completions | parallelism |
        | 2           | 2           |
      And the workload interval passes
      And the Job "j" has one pod succeed
      And the workload interval passes
      # Ruled out: completing on the first success.
      Then the Job "j" has no condition "Complete"
      When the Job "j" has one pod succeed
      And the workload interval passes
      Then the Job "j" has condition "Complete" "True"
      And the Job "j" has a completion time
      And the Job "j" status shows:
        | succeeded | active | failed |
        | 2         | 0      | 0      |

    @interpretation
    Scenario: the Complete condition carries upstream's reason and message
      When the Job "j" is created
      And the workload interval passes
      And the Job "j" pods succeed
      And the workload interval passes
      Then the Job "j" has condition "Complete" "True" with reason "CompletionsReached" and message:
        """
        Reached expected number of succeeded pods
        """

  @clause-JOB-STATUS-COUNTS @interpretation
  Rule: the Job's status counts its active, ready, succeeded and failed pods

    Scenario: one success and one failure among three
      # After the pass: the running pod and one new replacement are active; only the running one is ready.
      When the Job "j" is created with:
        | completions | parallelism |
        | 3           | 3           |
      And the workload interval passes
      And the Job "j" pods start
      And the Job "j" has one pod succeed
      And the Job "j" has one pod fail
      And the workload interval passes
      Then the Job "j" status shows:
        | active | ready | succeeded | failed |
        | 2      | 1     | 1         | 1      |
      And the Job "j" has a start time
