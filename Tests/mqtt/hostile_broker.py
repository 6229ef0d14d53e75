#!/usr/bin/env python3
"""A broker that attacks its clients, over TLS on loopback, for reveille-mqtt's tests: after the
CONNACK it sends, at random, well-formed publishes (retained, to the bridge's own and the
household's topics), publishes with MQTT 5 properties of unknown identifiers, random bytes,
4 MiB packets, packets that claim 200 MB and send a little of it, acknowledgements of nothing,
AUTH and DISCONNECT packets, and cuts connections short. `fuzz` mode instead flips bytes in
valid packets. Bounded: it stops by itself after `seconds`, and writes at most 64 MiB a connection.

    python3 Tests/mqtt/hostile_broker.py CERT KEY PORT SECONDS [hostile|fuzz]
"""
import os, random, socket, ssl, struct, sys, threading, time


def varint(n):
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def packet(kind, body):
    return bytes([kind]) + varint(len(body)) + body


def utf8(text):
    data = text.encode() if isinstance(text, str) else text
    return struct.pack(">H", len(data)) + data


class HostileBroker:
    def __init__(self, cert, key, port, seconds, mode="hostile", seed=None, base="reveille/clock"):
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(8)
        self.listener.settimeout(0.5)
        self.deadline = time.monotonic() + seconds
        self.mode = mode
        self.random = random.Random(seed)
        self.base = base
        self.connections = 0
        self.sent = {}
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def join(self):
        self.thread.join()
        self.listener.close()

    def serve(self):
        while time.monotonic() < self.deadline:
            try:
                raw, _ = self.listener.accept()
            except OSError:
                continue
            self.connections += 1
            threading.Thread(target=self.attack, args=(raw, random.Random(self.random.random())), daemon=True).start()

    def count(self, what):
        with self.lock:
            self.sent[what] = self.sent.get(what, 0) + 1

    def attack(self, raw, rng):
        raw.settimeout(5)
        try:
            conn = self.context.wrap_socket(raw, server_side=True)
            first = conn.recv(4096)  # CONNECT (the protocol level is its 9th byte of the variable header)
            if not first or first[0] >> 4 != 1:
                return
            level = first[first.index(b"MQTT") + 4] if b"MQTT" in first else 4
            v5 = level == 5
            conn.sendall(packet(0x20, b"\x00\x00" + (b"\x00" if v5 else b"")))
            if self.mode == "drop":  # a broker that keeps dropping the connection at once
                time.sleep(0.2)
                self.count("dropped")
                return
            written = 0
            while time.monotonic() < self.deadline and written < 64 << 20:
                data = self.fuzz(rng, v5) if self.mode == "fuzz" else self.hostile(rng, v5)
                conn.sendall(data)
                written += len(data)
                if rng.random() < 0.02:
                    self.count("cut")
                    return
                if rng.random() < 0.3:
                    time.sleep(rng.random() * 0.05)
        except (OSError, ssl.SSLError, ValueError):
            pass
        finally:
            try:
                raw.close()
            except OSError:
                pass

    def topic(self, rng):
        return rng.choice([f"{self.base}/master/set", f"{self.base}/snooze/press", f"{self.base}/alarm/1/set",
                           f"{self.base}/apps/answer", "reveille-household/smiths/hub/policy",
                           "reveille-household/smiths/usage/evil", "homeassistant/status", "#", "+/+",
                           "x" * rng.randint(1, 3000), "\u00e9\u0000"])

    def publish(self, rng, v5, topic=None, payload=None, properties=b""):
        topic = topic or self.topic(rng)
        payload = payload if payload is not None else rng.choice([b"ON", b"OFF", b"PRESS", b"{}", b"\xff" * 40,
                                                                   os.urandom(rng.randint(0, 600))])
        qos = rng.choice([0, 0, 1, 2])
        flags = (qos << 1) | rng.choice([0, 1])
        body = utf8(topic) + (struct.pack(">H", rng.randint(1, 65535)) if qos else b"")
        if v5:
            body += varint(len(properties)) + properties
        return packet(0x30 | flags, body + payload)

    def hostile(self, rng, v5):
        choice = rng.random()
        if choice < 0.35:
            self.count("publish")
            return self.publish(rng, v5)
        if choice < 0.5:
            self.count("unknown property")
            # Identifiers MQTT 5 does not define (0x7F, 0x00, 0x30): libmosquitto's own parser met these
            # with an assertion in its logging (a NULL client) and aborted the process.
            weird = bytes([rng.choice([0x7F, 0x00, 0x30, 0x05, 0xFF])]) + os.urandom(rng.randint(0, 8))
            return self.publish(rng, True, properties=weird) if v5 else self.publish(rng, False, payload=weird)
        if choice < 0.65:
            self.count("random bytes")
            return os.urandom(rng.randint(1, 2048))
        if choice < 0.72:
            self.count("4 MiB packet")
            return self.publish(rng, v5, payload=b"P" * (4 << 20))
        if choice < 0.76:
            self.count("claims 200 MB")
            return bytes([0x30]) + varint(200_000_000) + utf8(self.base + "/master/set") + os.urandom(4096)
        if choice < 0.9:
            self.count("acknowledgement of nothing")
            kind = rng.choice([0x40, 0x50, 0x62, 0x70, 0x90, 0xB0, 0xD0, 0xF0, 0xE0, 0x20])
            return packet(kind, os.urandom(rng.randint(0, 12)))
        self.count("well-formed retained")
        return self.publish(rng, v5, topic=f"{self.base}/alarm/{rng.randint(1, 10**12)}/set", payload=b"OFF")

    def fuzz(self, rng, v5):
        self.count("mutated")
        data = bytearray(self.publish(rng, v5) if rng.random() < 0.7 else packet(rng.choice([0x90, 0xB0, 0x40, 0xD0]), b"\x00\x01\x00"))
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)


if __name__ == "__main__":
    cert, key, port, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    mode = sys.argv[5] if len(sys.argv) > 5 else "hostile"
    broker = HostileBroker(cert, key, port, seconds, mode).start()
    broker.join()
    print(f"{broker.connections} connections; sent: {broker.sent}")
