"""Pure Kubernetes machinery: selectors, patches, defaults, validation.

No I/O, no Flask, no store: functions over JSON-shaped dicts, shared by the API and the controllers.
"""
