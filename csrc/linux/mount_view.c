/* filled in by the Linux launcher work (issue 3) */
