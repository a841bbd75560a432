"""Many servers, one test: the authority and certificates of a test across servers, enrolment, keys in the
credential store, mutual TLS, the agents (Dask workers) and their controller (the scheduler and client)."""
