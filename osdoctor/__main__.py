from osdoctor.cli import main

raise SystemExit(main())
