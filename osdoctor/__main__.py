from osdoctor.main import main

raise SystemExit(main())
