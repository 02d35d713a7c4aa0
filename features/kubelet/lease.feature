@area-kubelet @needs-real-kubelet
Feature: A real kubelet renews its node's Lease on its own
  A board's kubelet keeps its node's Lease in kube-node-lease: leaseDurationSeconds is the lease
  duration (15 s) and renewTime moves every lease renew interval (5 s). That the Lease is named after
  the node and held by it is upstream's convention, our reading (judged at reference level). Only a real kubelet can show this, so the scenarios run on rigs (the node below is
  played by the rig board whose node_name is "node-a") and are disabled where the runner's fake
  kubelets play the nodes. On a short-timeout virtual rig the kubelet is configured with the same
  shorter numbers the runner is given (--profile-set), and the expectations follow the profile.

  Background:
    Given a kube32 control plane
    And these Ready nodes:
      | name   |
      | node-a |

  @clause-KUBELET-LEASE-RENEWAL
  Rule: the Lease is the node's, declares the lease duration and is renewed every renew interval

    Scenario: the Lease names its holder and declares the lease duration
      # a kubelet declaring another duration (or none) makes the controller use the wrong threshold
      Then the kubelet of node "node-a" holds its Lease declaring the lease duration

    Scenario: renewTime moves every lease renew interval
      # the mean gap over five renewals must be within 5 % of the interval: a kubelet renewing every
      # 6 s instead of 5 s (20 % late) fails, and so does one renewing twice as often
      Then the kubelet of node "node-a" renews its Lease every lease renew interval
