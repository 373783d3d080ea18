"""One module per `companion` subcommand; see companion.cli for the contract."""
