intent simulate_particles(particles: Vec[Particle], dt: Float) -> Vec[Particle]:
    constraints:
        - for each particle: update position and velocity
        - handle collisions
    properties:
        - parallelizable
