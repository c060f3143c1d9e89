"""The arena demonstration's glue (arena_demo.py, arena_report.py): which
bundle each arm trains on, which SFT tasks are dropped, and the report's
paired differences and noise figures."""

import math
import unittest

from wasmlearn import arena_demo, arena_report


def results(succ):
    """succ[seed][arm] = [success per round]."""
    seeds = []
    for s, arms in enumerate(succ):
        rec = {"seed": s, "sft_tasks": 100, "arms": {}}
        for arm, xs in arms.items():
            rec["arms"][arm] = {"rounds": [{"round": i + 1, "success": x, "rollouts": 100, "checks_fraction": x,
                                            "first_tool": 0.5, "first_call": 0.25,
                                            "format_errors": 10, "trained_tasks": {"home": 16}}
                                           for i, x in enumerate(xs)],
                                "grpo": [{"round": 0, "success": 0.5, "samples_with_signal": 8, "samples": 16,
                                          "policy_kl": 0.001}]}
        rec["sft_baseline"] = [{"round": i + 1, "success": 0.05, "rollouts": 100, "first_tool": 0.4, "first_call": 0.1}
                               for i in range(len(arms["targeted"]))]
        seeds.append(rec)
    settings = {"rounds": len(succ[0]["targeted"]), "max_chain": 2, "write_share": 0.5, "eval_tasks": 25,
                "group": 4, "targeted": 16, "grpo_rounds": 4, "grpo_group": 8, "reward": "envfactory", "jobs": 3}
    return {"settings": settings, "seeds": seeds, "wall_s": 600}


class ArmBundleTest(unittest.TestCase):
    def test_control_is_beside_targeted(self):
        t = "/r/seed0/control/arena/round-2/targeted/home.wasm"
        self.assertEqual(arena_demo.arm_bundle("targeted", t), t)
        self.assertEqual(arena_demo.arm_bundle("control", t), "/r/seed0/control/arena/round-2/control/home.wasm")

    def test_not_a_targeted_bundle(self):
        with self.assertRaises(ValueError):
            arena_demo.arm_bundle("control", "/r/round-2/eval/home.wasm")


class TaskKeysTest(unittest.TestCase):
    def test_same_instruction_or_same_calls(self):
        a = {"instruction": "Set the lamp desk to red.", "calls": [{"name": "f", "arguments": {"x": 1, "y": 2}}]}
        same_calls = {"instruction": "Please set desk to red.", "calls": [{"arguments": {"y": 2, "x": 1}, "name": "f"}]}
        same_text = {"instruction": "Set the lamp desk to red.", "calls": []}
        other = {"instruction": "Set the lamp desk to blue.", "calls": [{"name": "f", "arguments": {"x": 2}}]}
        k = arena_demo.task_keys(a)
        self.assertTrue(k & arena_demo.task_keys(same_calls))
        self.assertTrue(k & arena_demo.task_keys(same_text))
        self.assertFalse(k & arena_demo.task_keys(other))


class FirstCallTest(unittest.TestCase):
    def test_first_tool_and_call(self):
        truth = {"a": [{"name": "find", "arguments": {"name": "desk"}}, {"name": "update", "arguments": {}}],
                 "refuse": []}

        def row(task, *calls):
            msgs = [{"role": "user", "content": "x"}]
            for name, args in calls:
                msgs.append({"role": "assistant", "tool_calls": [{"function": {"name": name, "arguments": args}}]})
            return {"task": task, "messages": msgs}
        rows = [row("a", ("find", '{"name": "desk"}')),            # right call
                row("a", ("find", '{"name": "porch"}')),           # right tool, wrong argument
                row("a", ("update", "{}"), ("find", '{"name": "desk"}')),  # wrong first tool
                row("a", ("find", "{not json")),                   # right tool, malformed arguments
                row("a"),                                          # no call at all
                row("refuse", ("find", "{}"))]                     # needs no call: not counted
        tool, call = arena_report.first_call(rows, truth)
        self.assertAlmostEqual(tool, 3 / 5)
        self.assertAlmostEqual(call, 1 / 5)
        self.assertEqual(arena_report.first_call([], truth), (0.0, 0.0))


class ReportTest(unittest.TestCase):
    def test_paired_differences_and_noise(self):
        r = results([{"targeted": [0.10, 0.30, 0.40], "control": [0.12, 0.20, 0.25]},
                      {"targeted": [0.20, 0.20, 0.30], "control": [0.20, 0.25, 0.20]}])
        md = arena_report.markdown(r, "img/x.png")
        self.assertIn("| 0 | 0.100 | 0.120 | -0.020 | 0.300 | 0.200 | +0.100 | 0.400 | 0.250 | +0.150 |", md)
        self.assertIn("| 1 | 0.200 | 0.200 | +0.000 | 0.200 | 0.250 | -0.050 | 0.300 | 0.200 | +0.100 |", md)
        # round 3: Δ +0.150 and +0.100 → mean +0.125, std 0.035
        self.assertIn("**+0.125 ± 0.035**", md)
        d1, se = arena_report.noise(r)
        self.assertEqual([round(x, 3) for x in d1], [-0.02, 0.0])
        want = sum(math.sqrt(p * (1 - p) / 100) for p in (0.10, 0.12, 0.20, 0.20)) / 4
        self.assertAlmostEqual(se, want)
        self.assertIn("![arena demonstration](img/x.png)", md)
        self.assertIn("16 of 32", md)
        self.assertIn("| 3 | 100/100 | 0.050 ± 0.000 | 0.350 ± 0.071 | 0.225 ± 0.035 | 0.400 ± 0.000 | 0.500 ± 0.000 | 0.500 ± 0.000 |", md)
        self.assertIn("| 3 | 0.500 / 0.500 | 0.250 / 0.250 | 0.350 / 0.225 | 0.100 / 0.100 |", md)  # 8 of 16 per seed, two seeds

    def test_no_plot(self):
        r = results([{"targeted": [0.0, 0.0], "control": [0.0, 0.0]}])
        md = arena_report.markdown(r, None)
        self.assertIn("no plot", md)
        self.assertIn("+0.000 ± 0.000", md)


if __name__ == "__main__":
    unittest.main()
