from kube32.conformance.cli import main

raise SystemExit(main())
