"""What the benches' screen captures show, told from their pixels: the page's colours are
page.css's, so the clock face, the ring screen and its keypad are known by where those colours
are, at the 800x480 of the Pi's touchscreen (or scaled from another size)."""
import time

WIDTH, HEIGHT = 800, 480


class Screen:
    """A capture: qemu's screendump (a binary PPM, P6), its pixels as RGB triples. Saved as PNG
    with the standard library (zlib), so the benches need no imaging package."""

    def __init__(self, width, height, pixels):
        self.width, self.height, self.pixels = width, height, pixels

    @staticmethod
    def read_ppm(path):
        data = open(path, "rb").read()
        fields, position = [], 0
        while len(fields) < 4:  # magic, width, height, maximum; comments start with '#'
            while data[position:position + 1].isspace():
                position += 1
            if data[position:position + 1] == b"#":
                position = data.index(b"\n", position) + 1
                continue
            end = position
            while not data[end:end + 1].isspace():
                end += 1
            fields.append(data[position:end])
            position = end
        if fields[0] != b"P6" or int(fields[3]) != 255:
            raise ValueError(f"{path}: not an 8-bit binary PPM")
        width, height = int(fields[1]), int(fields[2])
        return Screen(width, height, data[position + 1:position + 1 + width * height * 3])

    @staticmethod
    def read_png(path):
        """A capture `save_png` wrote (8-bit RGB, every row unfiltered), read back for the tests."""
        import struct, zlib
        with open(path, "rb") as f:
            data, position, chunks = f.read(), 8, b""
        while position < len(data):
            length, kind = struct.unpack(">I4s", data[position:position + 8])
            body = data[position + 8:position + 8 + length]
            position += 12 + length
            if kind == b"IHDR":
                width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
            elif kind == b"IDAT":
                chunks += body
        raw, stride = zlib.decompress(chunks), width * 3
        if (depth, colour_type, interlace) != (8, 2, 0) or any(raw[y * (stride + 1)] for y in range(height)):
            raise ValueError(f"{path}: not a capture as save_png writes it (8-bit RGB, unfiltered rows)")
        return Screen(width, height, b"".join(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)] for y in range(height)))

    def save_png(self, path):
        import struct, zlib
        rows = b"".join(b"\0" + self.pixels[y * self.width * 3:(y + 1) * self.width * 3] for y in range(self.height))
        def chunk(kind, body):
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))

    def counts(self, box=None):
        """How many pixels of each colour, in `box` (left, top, right, bottom) or the whole."""
        from collections import Counter
        left, top, right, bottom = box or (0, 0, self.width, self.height)
        counter = Counter()
        for y in range(top, bottom):
            row = self.pixels[(y * self.width + left) * 3:(y * self.width + right) * 3]
            counter.update(row[i:i + 3] for i in range(0, len(row), 3))
        return counter, (right - left) * (bottom - top)


def colours(image):
    """The share of the screen each colour covers, largest first."""
    counter, total = image.counts()
    return [(count / total, tuple(colour)) for colour, count in counter.most_common()]


def share(image, wanted, box=None, tolerance=6):
    counter, total = image.counts(box)
    return sum(count for colour, count in counter.items()
               if all(abs(a - b) <= tolerance for a, b in zip(colour, wanted))) / total


PAGE_BACKGROUND = {(17, 17, 17), (0, 0, 0)}  # page.css: --bg by day (#111) and by night (#000)
FOREGROUND = [(238, 238, 238), (255, 92, 77)]  # --fg by day (#eee) and by night (#ff5c4d)
KEY = [(42, 42, 42), (26, 0, 0)]  # --button: the keypad's keys, by day and by night


def tabs(image):
    """How much of the top strip is the tabs' buttons (the face has them; the set-up does not)."""
    return max(share(image, colour, (0, 0, image.width, image.height // 10)) for colour in KEY + [(68, 68, 68)])


def looks_like_face(image):
    top = colours(image)[0]
    text = max(share(image, colour) for colour in FOREGROUND)
    strip = tabs(image)
    return (top[1] in PAGE_BACKGROUND and top[0] > 0.5 and text > 0.005 and strip > 0.3,
            f"background {top[1]} over {top[0]:.0%}, text {text:.1%}, tabs {strip:.0%} of the top strip")


def looks_like_ring(image):
    # The ring screen: black, no tabs, SNOOZE's colour at its place on the left (where the set-up's
    # one button does not reach), a key's colour on the right (DISMISS, or the keypad), the time.
    keys = max(share(image, colour, (image.width // 2, 0, image.width, image.height)) for colour in KEY)
    snooze = max(share(image, colour, (20, 300, 260, 340)) for colour in PRIMARY)
    text = max(share(image, colour) for colour in FOREGROUND)
    top = colours(image)[0]
    strip = tabs(image)
    return (top[1] == (0, 0, 0) and keys > 0.05 and snooze > 0.5 and text > 0.01 and strip < 0.05,
            f"black {top[0]:.0%}, keys {keys:.1%} of the right half, SNOOZE {snooze:.0%} of its place, text {text:.1%}, "
            f"tabs {strip:.0%} of the top strip")


def looks_like_keypad(image):
    # The problem asked: the keypad's rows of keys in the right-hand column (1 2 3 at the top, the
    # wide 0 at the bottom), OK in the primary colour beside them.
    first = max(share(image, colour, (470, 185, 700, 222)) for colour in KEY)
    zero = max(share(image, colour, (470, 358, 700, 396)) for colour in KEY)
    ok = max(share(image, colour, (716, 300, 780, 396)) for colour in PRIMARY)
    return (first > 0.5 and zero > 0.5 and ok > 0.5,
            f"keys 1-3 {first:.0%} and 0 {zero:.0%} of their rows, OK {ok:.0%} of its place")


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


def looks_like_setup(image):
    # The first boot's question: the page's background, its one blue button in the middle.
    top = colours(image)[0]
    button = max(share(image, colour, (image.width // 4, image.height // 2, 3 * image.width // 4, image.height)) for colour in PRIMARY)
    text = max(share(image, colour) for colour in FOREGROUND)
    band = fields(image)
    return (top[1] in PAGE_BACKGROUND and button > 0.03 and text > 0.005 and tabs(image) < 0.05 and band > 0.5,
            f"background {top[1]} over {top[0]:.0%}, button {button:.1%} of the lower middle, text {text:.1%}, "
            f"fields {band:.0%} of their band")


def fields(image):
    """How much of the set-up's band of fields (region, place) is their fill: the set-up question
    has them, the pairing code that follows it does not (both have one button in the middle)."""
    return max(share(image, colour, (140, 235, 660, 280)) for colour in KEY)


def looks_like_pairing(image):
    # The code in large type over the page's background, Done below it, the fields gone.
    top = colours(image)[0]
    text = max(share(image, colour) for colour in FOREGROUND)
    button = max(share(image, colour, (0, image.height * 2 // 3, image.width, image.height)) for colour in PRIMARY)
    band = fields(image)
    return (top[1] in PAGE_BACKGROUND and text > 0.01 and button > 0.05 and tabs(image) < 0.05 and band < 0.1,
            f"text {text:.1%}, Done {button:.1%} of the lower third, no tabs, fields {band:.0%} of their band")


SET_ZONE = (400, 332)  # "Set the time zone" on the 800x480 set-up screen (Tests/web's screenshots)
DONE = (400, 380)  # "Done" under the pairing code
WIFI_CONTINUE = (471, 139)  # "Continue without Wi-Fi" on a clock with no adapter (pinned by Tests/web's set-up test)
