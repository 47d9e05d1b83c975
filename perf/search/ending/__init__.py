"""When a rounds sweep's ranking ends: the decided rule and its words (:mod:`.decided`), the
contenders a budget miss this host cannot verify keeps in contention (:mod:`.unverified`), and the
tie set a group ends with (:mod:`.tie`)."""
