"""Eight-Minute Empire's part of the moderator: order language, words, views, bot (``kind.EightMinuteEmpire``)."""
