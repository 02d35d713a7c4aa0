@area-scheduler @needs-exclusive-nodes
Feature: Scoring and tie-breaking
  Every node that passes the filters scores the mean of two percentages worked out as if the
  pod were already on it: the memory left and the GPIO count left. The highest score wins;
  equal scores go to the alphabetically first node name.

  Background:
    Given a kube32 control plane

  @clause-SCHED-SCORE-MEAN-AFTER-BIND
  Rule: the highest mean of free memory % and free GPIO % after binding wins

    Scenario: a big node beats a small one that looks equal before binding
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 200Ki  | 8             |
        | node-b | 2000Ki | 8             |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | memory        | 100Ki    |
        | esp32.io/gpio | 4        |
      # after binding: node-a (50 + 50) / 2 = 50, node-b (95 + 50) / 2 = 72.5
      # before binding both score 100 and the tie goes to node-a; the lowest score is node-a
      Then pod "p" is bound to node "node-b"

    Scenario: GPIO counts as much as memory
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 400Ki  | 8             |
        | node-b | 200Ki  | 40            |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | memory        | 100Ki    |
        | esp32.io/gpio | 4        |
      # node-a (75 + 50) / 2 = 62.5, node-b (50 + 90) / 2 = 70
      # memory alone, or free amounts instead of percentages, pick node-a
      Then pod "p" is bound to node "node-b"

    Scenario: memory counts as much as GPIO
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 1000Ki | 10            |
        | node-b | 200Ki  | 16            |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | memory        | 100Ki    |
        | esp32.io/gpio | 4        |
      # node-a (90 + 60) / 2 = 75, node-b (50 + 75) / 2 = 62.5; GPIO alone picks node-b
      Then pod "p" is bound to node "node-a"

    Scenario: pods the scheduler still subtracts are part of "after binding"
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 400Ki  | 8             |
        | node-b | 300Ki  | 8             |
      When I create a pod "a" requesting:
        | resource | quantity |
        | memory   | 200Ki    |
      And I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 100Ki    |
      Then pod "a" is bound to node "node-a"
      # node-a (25 + 100) / 2 = 62.5 with pod "a" (Pending) subtracted, node-b (66.7 + 100) / 2
      # = 83.3; ignoring pod "a" node-a would score 87.5
      And pod "p" is bound to node "node-b"

    @interpretation
    Scenario: percentages are of the node's capacity
      Given these Ready nodes:
        | name   | capacity memory | allocatable memory | esp32.io/gpio |
        | node-a | 1000Ki          | 300Ki              | 8             |
        | node-b | 300Ki           | 300Ki              | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 100Ki    |
      # of capacity: node-a (20 + 100) / 2 = 60, node-b (66.7 + 100) / 2 = 83.3;
      # of allocatable both score 83.3 and the tie goes to node-a
      Then pod "p" is bound to node "node-b"

  @clause-SCHED-SCORE-NO-GPIO
  @interpretation
  Rule: a node without GPIO scores 0 % free GPIO

    Scenario Outline: a node with <gpio> loses to a smaller node with GPIO
      Given these Ready nodes:
        | name   | memory | esp32.io/gpio |
        | node-a | 1000Ki | <figure>      |
        | node-b | 100Ki  | 10            |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 40Ki     |
      # node-a (96 + 0) / 2 = 48, node-b (60 + 100) / 2 = 80; counting node-a's GPIO as 100 %
      # free gives 98, leaving the term out gives 96: both pick node-a
      Then pod "p" is bound to node "node-b"

      Examples:
        | gpio           | figure |
        | 0 GPIO         | 0      |
        | no GPIO figure |        |

  @clause-SCHED-TIE-BREAK
  Rule: equal scores go to the alphabetically first node name

    Scenario: three identical nodes registered out of order
      Given these Ready nodes:
        | name  | memory | esp32.io/gpio |
        | esp-b | 200Ki  | 8             |
        | esp-a | 200Ki  | 8             |
        | esp-c | 200Ki  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      # registration order picks esp-b; reverse order picks esp-c
      Then pod "p" is bound to node "esp-a"

    @interpretation
    Scenario: names compare byte by byte (upper case before lower case, "10" before "9")
      Given these Ready nodes:
        | name    | memory | esp32.io/gpio |
        | esp-9   | 200Ki  | 8             |
        | esp-10  | 200Ki  | 8             |
        | esp-b   | 200Ki  | 8             |
      When I create a pod "p" requesting:
        | resource | quantity |
        | memory   | 50Ki     |
      # natural (numeric) order would pick esp-9
      Then pod "p" is bound to node "esp-10"

    Scenario: equal scores from different figures are a tie too
      Given these Ready nodes:
        | name  | memory | esp32.io/gpio |
        | esp-b | 120Ki  | 4             |
        | esp-a | 40Ki   | 12            |
      When I create a pod "p" requesting:
        | resource      | quantity |
        | memory        | 30Ki     |
        | esp32.io/gpio | 3        |
      # esp-b (75 + 25) / 2 = 50, esp-a (25 + 75) / 2 = 50: a tie, so esp-a
      Then pod "p" is bound to node "esp-a"
