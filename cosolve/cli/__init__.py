"""The command line: one module per subcommand (``cosolve NAME``), imported only when used."""
