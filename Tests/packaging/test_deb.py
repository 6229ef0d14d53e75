#!/usr/bin/env python3
"""The Debian package, built by scripts/make-deb.sh from the debug build (make test runs this;
`make deb` builds the real one from the release build) and read back with dpkg-deb: its control
fields, the libraries dpkg-shlibdeps found, the conffiles, the files in their Debian places and
maintainer scripts that a shell accepts.

    python3 Tests/packaging/test_deb.py [BINARIES]    (default: .build/debug)
"""
import os, re, subprocess, sys, tempfile, unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARIES = os.path.join(REPO, ".build", "debug")
MANPAGES = os.path.join(REPO, ".build", "plugins", "GenerateManual", "outputs")


def run(*arguments, **options):
    return subprocess.run(arguments, check=True, capture_output=True, text=True, **options).stdout


class PackageTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="reveille-deb-test.")
        environment = {**os.environ, "DEB_COMPRESSION": "gzip", "DEB_COMPRESSION_LEVEL": "1",
                       "DEB_UNPACKAGED_LIBRARIES": "1"}
        cls.package = run(os.path.join(REPO, "scripts", "make-deb.sh"), BINARIES, MANPAGES, cls.folder,
                          env=environment).strip()
        cls.info = run("dpkg-deb", "--info", cls.package)
        cls.contents = run("dpkg-deb", "--contents", cls.package)
        cls.control = {}
        for line in run("dpkg-deb", "--field", cls.package).splitlines():
            if ":" in line and not line.startswith(" "):
                key, value = line.split(":", 1)
                cls.control[key] = value.strip()

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.folder])

    def test_named_as_debian_names_packages(self):
        arch = run("dpkg", "--print-architecture").strip()
        self.assertRegex(os.path.basename(self.package), rf"^reveille_\d+\.\d+\.\d+\+git\d+_{arch}\.deb$")
        self.assertEqual(self.control["Package"], "reveille")
        self.assertEqual(self.control["Architecture"], arch)

    def test_depends_lists_the_runtime_libraries_dpkg_shlibdeps_found(self):
        depends = self.control["Depends"]
        for library in ["libnfc6", "libasound2", "libsndfile1", "libespeak-ng1", "libical3", "libcurl4",
                        "libsqlite3-0", "libsystemd0", "libevdev2", "libc6", "systemd"]:
            self.assertRegex(depends, rf"(^|, ){re.escape(library)}( \(|,|$)", f"{library} in Depends: {depends}")
        # No development package: the clock needs the libraries only.
        self.assertNotIn("-dev", depends)

    def test_settings_udev_and_modprobe_files_are_conffiles(self):
        conffiles = run("sh", "-c", f"dpkg-deb --ctrl-tarfile '{self.package}' | tar -xO ./conffiles").split()
        self.assertEqual(sorted(conffiles), sorted([
            "/etc/reveille/reveille.toml", "/etc/reveille/apps.toml",
            "/etc/udev/rules.d/70-reveille.rules", "/etc/modprobe.d/reveille-nfc.conf",
            "/etc/xdg/autostart/reveille-notify.desktop"]))
        for path in conffiles:
            self.assertIn("." + path, self.contents)

    def test_files_are_in_their_debian_places(self):
        # The daemon and the page's server are one program: reveille-web is a link to reveilled.
        self.assertRegex(self.contents, r"\s\./usr/bin/reveille-web -> reveilled\n")
        # So is the MQTT bridge, which opens libmosquitto itself (the package depends on it by hand).
        self.assertRegex(self.contents, r"\s\./usr/bin/reveille-mqtt -> reveilled\n")
        self.assertIn("libmosquitto1", self.control["Depends"])
        # So is a child's desktop notifier, started in each graphical session.
        self.assertRegex(self.contents, r"\s\./usr/bin/reveille-notify -> reveilled\n")
        desktop = run("sh", "-c", f"dpkg-deb --fsys-tarfile '{self.package}' | tar -xO ./etc/xdg/autostart/reveille-notify.desktop")
        self.assertIn("Exec=/usr/bin/reveille-notify\n", desktop)
        for path in ["./usr/bin/reveilled", "./usr/bin/reveille", "./usr/bin/reveille-calendar",
                     "./usr/lib/systemd/system/reveille-mqtt.service", "./usr/share/man/man8/reveille-mqtt.8.gz",
                     "./usr/lib/systemd/system/reveille.service", "./usr/lib/systemd/system/reveille-calendar.timer",
                     "./usr/lib/systemd/system/reveille-calendar.path",
                     "./usr/lib/sysusers.d/reveille.conf", "./usr/lib/tmpfiles.d/reveille.conf",
                     "./usr/share/man/man1/reveille.1.gz", "./usr/share/man/man8/reveilled.8.gz",
                     "./usr/share/bash-completion/completions/reveille",
                     "./usr/share/doc/reveille/copyright", "./usr/share/doc/reveille/changelog.gz", "./usr/share/man/man8/reveille-calendar.8.gz"]:
            self.assertRegex(self.contents, rf"\s{re.escape(path)}\n", path)
        # Owned by root, whoever built it; nothing under /usr/local.
        self.assertNotRegex(self.contents, re.compile(r"^\S+ (?!root/root\s)\S+", re.M))
        self.assertNotIn("./usr/local", self.contents)
        # The units start the programs where the package puts them.
        unit = run("sh", "-c", f"dpkg-deb --fsys-tarfile '{self.package}' | tar -xO ./usr/lib/systemd/system/reveille.service")
        self.assertIn("ExecStart=/usr/bin/reveilled", unit)

    def test_the_programs_are_stripped(self):
        with tempfile.TemporaryDirectory() as folder:
            run("sh", "-c", f"dpkg-deb --fsys-tarfile '{self.package}' | tar -x -C '{folder}' ./usr/bin")
            # libmosquitto is opened by reveille-mqtt, never linked: the daemon does not map it.
            self.assertNotIn("libmosquitto", run("readelf", "-d", os.path.join(folder, "usr/bin/reveilled")))
            for program in ["reveilled", "reveille", "reveille-calendar"]:
                sections = run("readelf", "-S", os.path.join(folder, "usr/bin", program))
                self.assertNotIn(".debug_info", sections, program)
                self.assertNotIn(".symtab", sections, program)

    def test_the_symbols_are_split_off_into_a_dbgsym_package(self):
        # As dh_strip does: reveille-dbgsym holds each program's debug information under its build id.
        debug = self.package.replace("/reveille_", "/reveille-dbgsym_")
        self.assertTrue(os.path.exists(debug), debug)
        fields = run("dpkg-deb", "--field", debug)
        self.assertIn("Package: reveille-dbgsym", fields)
        self.assertIn(f"Depends: reveille (= {self.control['Version']})", fields)
        contents = run("dpkg-deb", "--contents", debug)
        with tempfile.TemporaryDirectory() as folder:
            run("sh", "-c", f"dpkg-deb --fsys-tarfile '{self.package}' | tar -x -C '{folder}' ./usr/bin")
            for program in ["reveilled", "reveille", "reveille-calendar"]:
                notes = run("readelf", "-n", os.path.join(folder, "usr/bin", program))
                build_id = re.search(r"Build ID: ([0-9a-f]+)", notes).group(1)
                self.assertIn(f"./usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug", contents, program)
                self.assertIn(build_id, fields)

    def test_maintainer_scripts_parse_and_purge_removes_the_state(self):
        with tempfile.TemporaryDirectory() as folder:
            run("dpkg-deb", "--control", self.package, folder)
            for script in ["postinst", "prerm", "postrm"]:
                path = os.path.join(folder, script)
                self.assertTrue(os.access(path, os.X_OK), script)
                run("sh", "-n", path)
            with open(os.path.join(folder, "postinst")) as f:
                postinst = f.read()
            self.assertIn("systemd-sysusers /usr/lib/sysusers.d/reveille.conf", postinst)
            self.assertIn("deb-systemd-helper", postinst)
            self.assertIn("udevadm trigger", postinst)
            with open(os.path.join(folder, "postrm")) as f:
                postrm = f.read()
            self.assertRegex(postrm, r'if \[ "\$1" = purge \]; then[\s\S]*rm -rf /var/lib/reveille /var/lib/reveille-mqtt /var/cache/reveille-calendars')
            # The MQTT bridge is installed off: it has nothing to do until [mqtt] names a broker.
            enabled = re.search(r"for unit in ([^;]*); do\n\s+if command -v deb-systemd-helper[^\n]*\n\s+deb-systemd-helper unmask", postinst)
            self.assertIn("reveille.service", enabled.group(1))
            self.assertNotIn("reveille-mqtt", enabled.group(1))
            self.assertRegex(postinst, r'for unit in reveille-mqtt.service; do\n\s+if command -v deb-systemd-helper[^\n]*\n\s+deb-systemd-helper update-state')


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BINARIES = os.path.abspath(sys.argv.pop(1))
    for tool in ["dpkg-deb", "dpkg-shlibdeps", "strip", "readelf"]:
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
            sys.exit(f"{tool} is missing: scripts/install-deps.sh test installs dpkg-dev and binutils")
    unittest.main(verbosity=2)
