"""File I/O on the customer's disks: unbuffered and write-through, and never a file Jetwise did not create.

`platform` is the small interface to the operating system (POSIX and Windows backends),
`pages` the on-disk format (headers, page checksums), `files` creates, attaches and
removes database and log files, `preflight` checks a configuration against the machine.
"""
