intent classify_image(img: Image) -> Label:
    constraints:
        - accuracy > 95%
        - latency < 100ms on target_device
