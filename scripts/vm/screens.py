"""What the benches' screen captures show, told from their pixels: the page's colours are
page.css's, so the clock face, the ring screen and its keypad are known by where those colours
are, at the 800x480 of the Pi's touchscreen (or scaled from another size)."""
import time

WIDTH, HEIGHT = 800, 480


def colours(image):
    """The share of the screen each colour covers, largest first."""
    counts = image.getcolors(image.width * image.height) or []
    total = image.width * image.height
    return [(count / total, colour) for count, colour in sorted(counts, reverse=True)]


def share(image, wanted, box=None, tolerance=6):
    region = image.crop(box) if box else image
    total = region.width * region.height
    return sum(count for count, colour in (region.getcolors(total) or [])
               if all(abs(a - b) <= tolerance for a, b in zip(colour, wanted))) / total


PAGE_BACKGROUND = {(17, 17, 17), (0, 0, 0)}  # page.css: --bg by day (#111) and by night (#000)
FOREGROUND = [(238, 238, 238), (255, 92, 77)]  # --fg by day (#eee) and by night (#ff5c4d)
KEY = [(42, 42, 42), (26, 0, 0)]  # --button: the keypad's keys, by day and by night


def looks_like_face(image):
    top = colours(image)[0]
    text = max(share(image, colour) for colour in FOREGROUND)
    return top[1] in PAGE_BACKGROUND and top[0] > 0.5 and text > 0.005, f"background {top[1]} over {top[0]:.0%}, text {text:.1%}"


def looks_like_ring(image):
    # The ring screen: black, its keypad's keys in the right-hand column, the time in large type.
    keys = max(share(image, colour, (image.width // 2, 0, image.width, image.height)) for colour in KEY)
    text = max(share(image, colour) for colour in FOREGROUND)
    top = colours(image)[0]
    return top[1] == (0, 0, 0) and keys > 0.05 and text > 0.01, f"black {top[0]:.0%}, keys {keys:.1%} of the right half, text {text:.1%}"


def looks_like_keypad(image):
    # The problem asked: the keypad's keys fill the right-hand column's lower part, OK among them.
    keys = max(share(image, colour, (464, 180, 786, 450)) for colour in KEY)
    ok = max(share(image, colour, (image.width // 2, 0, image.width, image.height)) for colour in PRIMARY)
    return keys > 0.3 and ok > 0.01, f"keys {keys:.0%} of the keypad's place, OK {ok:.1%} of the right half"


PRIMARY = [(45, 91, 138), (58, 0, 0)]  # --primary by day and by night: SNOOZE, OK
DISMISS = (625, 265)  # where DISMISS is on the 800x480 ring screen (Tests/web's screenshots)


def wait_screen(guest, png, test, seconds):
    deadline = time.monotonic() + seconds
    while True:
        image = guest.screendump(png)
        ok, detail = test(image)
        if ok or time.monotonic() > deadline:
            return ok, detail, image
        time.sleep(3)
