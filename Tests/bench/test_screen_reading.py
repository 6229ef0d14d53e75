#!/usr/bin/env python3
"""The benches' eyes: `scripts/vm/screens.py` tells the kiosk's screens apart from their pixels
(the set-up question, the phone's code, the face, the ring, its keypad) for `make vm-test-pi` and
`make vm-smoke`, which tap and judge by them. Each reader is run on captures of every screen, by day
and by night, and must say yes to its own and no to every other: a reader that takes the set-up for
the phone's code, or the face for a ring, lets a bench pass on the wrong screen (both happened at
night: the red-on-black night colours match more than the day's).

    python3 Tests/bench/test_screen_reading.py     (`make test` runs it)
"""
import os, sys, unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts", "vm"))
import screens  # noqa: E402

READERS = ["setup", "pairing", "face", "ring", "keypad"]

# Each capture (800x480, the image's kiosk on the Pi bench's virt board) and the readers that
# must take it; all others must not.
CAPTURES = {
    # By day (a ring on a machine with no speaker, which the ring screen says).
    "Tests/fixtures/screens/day-setup.png": {"setup"},
    "Tests/fixtures/screens/day-pair.png": {"pairing"},
    "Tests/fixtures/screens/day-face.png": {"face"},
    "Tests/fixtures/screens/day-ring.png": {"ring"},  # DISMISS, not yet its keypad
    "Tests/fixtures/screens/day-keypad.png": {"ring", "keypad"},
    # By night (red on black).
    "Tests/fixtures/screens/night-setup.png": {"setup"},
    "Tests/fixtures/screens/night-pair.png": {"pairing"},
    "Tests/fixtures/screens/night-face.png": {"face"},
    "Tests/fixtures/screens/night-face-ring-due.png": {"face"},  # the alarm due, its ring not yet shown
    "Tests/fixtures/screens/night-ring.png": {"ring"},
    "Tests/fixtures/screens/night-keypad.png": {"ring", "keypad"},
}


class ScreenReadingTests(unittest.TestCase):
    def test_each_reader_takes_its_own_screens_and_no_other(self):
        for path, expected in CAPTURES.items():
            image = screens.Screen.read_png(os.path.join(REPO, path))
            self.assertEqual((image.width, image.height), (800, 480), path)
            for name in READERS:
                taken, detail = getattr(screens, "looks_like_" + name)(image)
                with self.subTest(capture=path, reader=name):
                    self.assertEqual(taken, name in expected, f"{path}: looks_like_{name}: {detail}")

    def test_png_read_back_as_saved(self):
        image = screens.Screen(3, 2, bytes(range(18)))
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"screen-reading-{os.getpid()}.png")
        try:
            image.save_png(path)
            again = screens.Screen.read_png(path)
        finally:
            os.unlink(path)
        self.assertEqual((again.width, again.height, again.pixels), (3, 2, image.pixels))


if __name__ == "__main__":
    unittest.main(verbosity=1)
