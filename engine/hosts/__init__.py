"""Many servers, one test: the authority and certificates of a test across servers, enrolment, keys in the
credential store, mutual TLS, the agents and their controller, one link each (typed messages over WebSockets)."""
