intent process_images(images: Stream[Image]) -> Stream[Features]:
    constraints:
        - for each image: extract_features(image)
    properties:
        - order_independent
        - stateless
