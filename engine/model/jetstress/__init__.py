"""JetstressConfig.xml, the configuration engineers and their scripts already keep, read and written.

`elements` declares the Jetstress 2013 file once: its elements in order with Jetstress's
defaults. `reading` turns a file as found in the field (empty elements, junk values, no
databases yet, Windows paths, any line endings) into Jetwise's configuration data, saying what
it used instead of each bad value and which elements Jetwise does not model; `writing` turns a
configuration into a file Jetstress 2013 accepts. Text in, text out: nothing here touches a disk.
"""
