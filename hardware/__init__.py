"""The table's physical devices, behind companion.devices' small interfaces.

- ``hardware.setup.open_devices`` is the one entry point the service calls.
- ``hardware.serial_link.PicoTimer``: the Pico USB timer over pyserial.
- ``hardware.gpio``: buzzer, LEDs and buttons on the Pi's GPIO with gpiozero.
- ``hardware.simulator.Simulator``: the firmware's own code on a pseudo-terminal.
- ``hardware.runner``: one countdown on the attached outputs (``companion timer run``).
"""
