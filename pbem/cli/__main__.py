"""``python -m pbem.cli``: the same as the ``pbem`` command."""
from pbem.cli import main

if __name__ == "__main__":  # not when a spawned helper process imports this module (pbem.moderator.notify.pictures)
    main()
