import HarkCore
print("hark")
