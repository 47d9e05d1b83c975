"""When a rounds sweep's ranking ends: the decided rule and its words (:mod:`.decided`), and the
contenders a budget miss this host cannot verify keeps in contention (:mod:`.unverified`)."""
