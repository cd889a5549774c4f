"""A PTO controller FMU (pythonfmu, no numpy): a linear damper or a PI velocity tracker.

Inputs ``velocity`` (m/s, the body's velocity along the PTO axis, e.g. ``body.velocity[3]``)
and ``velocity_ref`` (m/s, the PI set point); output ``force`` (N, to ``body.F_pto[3]``).

- ``mode = 0``, damper: ``force = -damping * velocity``;
- ``mode = 1``, PI velocity tracking: ``force = kp * e + ki * integral(e dt)``,
  ``e = velocity_ref - velocity``; the integral advances in ``do_step`` (rectangle rule
  with the error at the start of the step).

The force is limited to ``+-force_limit``. The output is computed when read (direct
feedthrough), so a master that passes the velocity and reads the force within one
communication point gets ``-damping * v`` at that point.
"""

from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Slave, Fmi2Variability, Integer, Real


class PTOController(Fmi2Slave):
    """Linear damper / PI velocity-tracking PTO controller."""

    author = "hydrofmu examples"
    description = "PTO controller: linear damper F = -c v (mode 0) or PI velocity tracking (mode 1)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.velocity = 0.0
        self.velocity_ref = 0.0
        self.damping = 2.0e5
        self.kp = 2.0e5
        self.ki = 5.0e4
        self.force_limit = 1.0e7
        self.mode = 0
        self.integral = 0.0
        for name, text in (
            ("velocity", "body velocity along the PTO axis, m/s"),
            ("velocity_ref", "PI velocity set point, m/s"),
        ):
            self.register_variable(
                Real(
                    name,
                    causality=Fmi2Causality.input,
                    variability=Fmi2Variability.continuous,
                    description=text,
                )
            )
        for name, text in (
            ("damping", "damper coefficient c, N s/m"),
            ("kp", "PI proportional gain, N s/m"),
            ("ki", "PI integral gain, N/m"),
            ("force_limit", "force saturation, N"),
        ):
            self.register_variable(
                Real(
                    name,
                    causality=Fmi2Causality.parameter,
                    variability=Fmi2Variability.tunable,
                    initial=Fmi2Initial.exact,
                    description=text,
                )
            )
        self.register_variable(
            Integer(
                "mode",
                causality=Fmi2Causality.parameter,
                variability=Fmi2Variability.fixed,
                initial=Fmi2Initial.exact,
                description="0: damper, 1: PI velocity tracking",
            )
        )
        self.register_variable(
            Real(
                "integral",
                causality=Fmi2Causality.local,
                variability=Fmi2Variability.continuous,
                description="integral of the velocity error, m",
            )
        )
        self.register_variable(
            Real(
                "force",
                causality=Fmi2Causality.output,
                variability=Fmi2Variability.continuous,
                description="PTO force on the body, N",
                getter=self.pto_force,
            )
        )

    def pto_force(self):
        if self.mode == 0:
            force = -self.damping * self.velocity
        else:
            force = self.kp * (self.velocity_ref - self.velocity) + self.ki * self.integral
        return max(-self.force_limit, min(self.force_limit, force))

    def do_step(self, current_time, step_size):
        if self.mode == 1:
            self.integral += (self.velocity_ref - self.velocity) * step_size
        return True
