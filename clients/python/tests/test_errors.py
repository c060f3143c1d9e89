"""Error typing: an answer's code decides whose fault it is."""

import unittest

from wasmenv_client import AgentFault, EnvironmentFault, EpisodeLost
from wasmenv_client.errors import error_from


class ErrorFromTest(unittest.TestCase):
    def test_episode_lost_through_a_gateway(self):
        # `wasmenv serve --nats` answers 410 episode_lost when the worker
        # that held the episode died: the environment's failure, not the
        # agent's, although the status is a 4xx.
        err = error_from(410, "episode_lost", "its worker is gone")
        self.assertIsInstance(err, EpisodeLost)
        self.assertIsInstance(err, EnvironmentFault)
        self.assertNotIsInstance(err, AgentFault)

    def test_gateway_without_workers_is_environment_fault(self):
        self.assertIsInstance(error_from(503, "no_workers", "none", 1.0), EnvironmentFault)

    def test_client_mistake_stays_agent_fault(self):
        self.assertIsInstance(error_from(400, "bad_request", "x"), AgentFault)


if __name__ == "__main__":
    unittest.main()
