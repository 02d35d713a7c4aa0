"""The kube32 conformance features (Gherkin). A package only so the features ship inside the wheel."""
