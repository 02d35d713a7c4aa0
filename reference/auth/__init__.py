"""Authentication and authorisation of the reference API server, upstream's model scaled down.

- ``identity``: who is asking (a ``User``: name, uid, groups).
- ``tokens``: kube-apiserver's static token file (``--token-auth-file``).
- ``authn``: bearer tokens and TLS client certificates (CN = user, O = groups) -> a User.
- ``authz``: a fixed policy instead of RBAC objects: ``system:masters`` may do everything; node
  identities get upstream's Node authorizer + NodeRestriction admission; everyone else is refused.
- ``gate``: the Flask hook that applies both to every request, answering Kubernetes Status errors.
The kube32 document says nothing about security: all of this follows upstream Kubernetes.
"""
