from kube32_conformance.cli import main

raise SystemExit(main())
