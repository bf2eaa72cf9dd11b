"""The tests of pbem, in folders that mirror the packages; helpers and fixture modules at the top."""
